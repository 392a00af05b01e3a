// The informer cache counts its objects per kind, down to zero once a kind's objects are all gone,
// and the manager publishes the counts as nvcre_cache_objects (the leak check reads them).
#include "k8s/cache_sizes.hpp"
#include "k8s/metrics.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

json::value object(std::string_view api_version, std::string_view kind, std::string_view name) {
  return json::object{
      {"apiVersion", api_version},
      {"kind", kind},
      {"metadata", {{"namespace", "ns"}, {"name", name}, {"resourceVersion", "1"}}}};
}

TEST(ObjectCacheSizeByKind, CountsEveryKindAndKeepsAnEmptiedKindAtZero) {
  ObjectCache cache;
  cache.upsert(object("v1", "Pod", "a"));
  cache.upsert(object("v1", "Pod", "b"));
  cache.upsert(object("nvcre.nvidia.com/v1alpha1", "Job", "j"));
  auto sizes = cache.size_by_kind();
  EXPECT_EQ((sizes[{"v1", "Pod"}]), 2u);
  EXPECT_EQ((sizes[{"nvcre.nvidia.com/v1alpha1", "Job"}]), 1u);
  cache.erase(object("nvcre.nvidia.com/v1alpha1", "Job", "j"));
  sizes = cache.size_by_kind();
  ASSERT_TRUE(sizes.contains({"nvcre.nvidia.com/v1alpha1", "Job"}));
  EXPECT_EQ((sizes[{"nvcre.nvidia.com/v1alpha1", "Job"}]), 0u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ObjectCacheMembershipChanges, MoveWhenAnObjectComesOrGoesNotWhenOneIsReplaced) {
  ObjectCache cache;
  auto changes = cache.membership_changes();
  cache.upsert(object("v1", "Pod", "a"));
  EXPECT_GT(cache.membership_changes(), changes);
  changes = cache.membership_changes();
  auto newer = object("v1", "Pod", "a");
  newer.as_object()["metadata"].as_object()["resourceVersion"] = "2";
  cache.upsert(newer);
  EXPECT_EQ(cache.membership_changes(), changes);
  cache.erase(object("v1", "Pod", "a"));
  EXPECT_GT(cache.membership_changes(), changes);
  changes = cache.membership_changes();
  cache.erase(object("v1", "Pod", "missing"));
  EXPECT_EQ(cache.membership_changes(), changes);
  cache.upsert(object("v1", "Pod", "b"));
  changes = cache.membership_changes();
  cache.clear_kind("v1", "Pod");
  EXPECT_GT(cache.membership_changes(), changes);
}

// The cache is recounted only after an object came or went, and only the counts that moved are set.
TEST(CacheSizePublisher, SetsCountsOnlyAfterAnObjectCameOrWent) {
  const std::pair<std::string, std::string> pods{"v1", "Pod"};
  ObjectCache cache;
  CacheSizePublisher publisher;
  cache.upsert(object("v1", "Pod", "a"));
  cache.upsert(object("v1", "Pod", "b"));
  EXPECT_EQ(publisher.counts_to_set(cache), (KindCounts{{pods, 2}}));
  EXPECT_TRUE(publisher.counts_to_set(cache).empty());
  auto newer = object("v1", "Pod", "a");
  newer.as_object()["metadata"].as_object()["resourceVersion"] = "2";
  cache.upsert(newer);  // replaced
  EXPECT_TRUE(publisher.counts_to_set(cache).empty());
  cache.upsert(object("v1", "Pod", "c"));
  EXPECT_EQ(publisher.counts_to_set(cache), (KindCounts{{pods, 3}}));
  cache.erase(object("v1", "Pod", "c"));
  EXPECT_EQ(publisher.counts_to_set(cache), (KindCounts{{pods, 2}}));
  cache.clear_kind("v1", "Pod");  // a relist emptied the kind
  EXPECT_EQ(publisher.counts_to_set(cache), (KindCounts{{pods, 0}}));
}

// Only the counts that moved are set again; an emptied kind is published as 0 once.
TEST(CacheSizesToPublish, OnlyMovedCountsAndVanishedKindsAtZero) {
  const std::pair<std::string, std::string> pods{"v1", "Pod"};
  const std::pair<std::string, std::string> jobs{"nvcre.nvidia.com/v1alpha1", "Job"};
  KindCounts published;
  EXPECT_EQ(cache_sizes_to_publish(published, {{pods, 2}, {jobs, 1}}),
            (KindCounts{{pods, 2}, {jobs, 1}}));
  EXPECT_TRUE(cache_sizes_to_publish(published, {{pods, 2}, {jobs, 1}}).empty());
  EXPECT_EQ(cache_sizes_to_publish(published, {{pods, 3}, {jobs, 1}}), (KindCounts{{pods, 3}}));
  EXPECT_EQ(cache_sizes_to_publish(published, {{pods, 3}}), (KindCounts{{jobs, 0}}));
  EXPECT_TRUE(cache_sizes_to_publish(published, {{pods, 3}}).empty());
  EXPECT_EQ(published, (KindCounts{{pods, 3}, {jobs, 0}}));
}

TEST(MetricsCacheObjects, AGaugePerApiVersionAndKind) {
  Metrics metrics;
  metrics.set_cache_objects("v1", "Pod", 3);
  metrics.set_cache_objects("v1", "Pod", 0);
  metrics.set_cache_objects("nvcre.nvidia.com/v1alpha1", "Job", 2);
  const std::string text = metrics.render();
  EXPECT_NE(text.find(R"(nvcre_cache_objects{api_version="v1",kind="Pod"} 0)"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find(R"(nvcre_cache_objects{api_version="nvcre.nvidia.com/v1alpha1",kind="Job"} 2)"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace nvcre::k8s
