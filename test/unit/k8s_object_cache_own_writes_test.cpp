// Read-your-writes in the informer cache: the manager's own writes are cached ahead of the watch,
// never behind it, and never bring back an object the watch saw go away.
#include "k8s/cache_scope.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const ObjectRef kJob{"nvcre.nvidia.com/v1alpha1", "Job", "ns", "job-a"};

json::value job(std::string_view resource_version, std::string_view phase = "Running",
                std::string_view name = "job-a") {
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "Job"},
      {"metadata",
       json::object{{"name", name}, {"namespace", "ns"}, {"resourceVersion", resource_version}}},
      {"status", json::object{{"phase", phase}}}};
}

std::string phase_of(const ObjectCache& cache, const ObjectRef& ref = kJob) {
  const json::value* object = cache.get(ref);
  return object == nullptr ? "<none>" : std::string(object->at("status").at("phase").as_string());
}

TEST(ObjectCacheOwnWrites, AWriteNewerThanTheWatchIsReadBackAndTheWatchCatchesUp) {
  ObjectCache cache;
  cache.upsert(job("10"));
  EXPECT_TRUE(cache.record_own_write(job("12", "Succeeded")));
  EXPECT_EQ(phase_of(cache), "Succeeded");
  cache.upsert(job("11", "Running"));  // an event from before our write, still in flight
  EXPECT_EQ(phase_of(cache), "Succeeded");
  cache.upsert(job("12", "Succeeded"));  // the watch's event for our write
  cache.upsert(job("13", "Failed"));     // and someone else's later write
  EXPECT_EQ(phase_of(cache), "Failed");
}

TEST(ObjectCacheOwnWrites, TheEchoOfAnOwnWriteKeepsTheCachedCopy) {
  ObjectCache cache;
  cache.upsert(job("10"));
  EXPECT_TRUE(cache.record_own_write(job("12", "Succeeded")));
  // A resourceVersion names one version of the object, so the event of the version cached is the
  // copy cached; a different phase here only makes visible which copy the cache kept.
  cache.upsert(job("12", "Echo"));
  EXPECT_EQ(phase_of(cache), "Succeeded");
  EXPECT_FALSE(cache.record_own_write(job("12", "Succeeded")));  // delivered now: nothing to do
  cache.upsert(job("13", "Failed"));
  EXPECT_EQ(phase_of(cache), "Failed");
}

TEST(ObjectCacheOwnWrites, AWriteTheWatchAlreadyPassedIsIgnored) {
  ObjectCache cache;
  cache.upsert(job("10"));
  cache.upsert(job("14", "Failed"));
  EXPECT_FALSE(cache.record_own_write(job("12", "Succeeded")));
  EXPECT_EQ(phase_of(cache), "Failed");
}

TEST(ObjectCacheOwnWrites, ACreateWhoseDeletionTheWatchDeliveredFirstIsNotResurrected) {
  ObjectCache cache;
  cache.upsert(job("20", "Running", "other"));
  cache.upsert(job("30", "Running"));
  cache.erase(job("31"));  // DELETED carries the deletion's resourceVersion
  EXPECT_FALSE(cache.record_own_write(job("30", "Running")));
  EXPECT_EQ(cache.get(kJob), nullptr);
  // A genuinely new create (after everything delivered) is cached.
  EXPECT_TRUE(cache.record_own_write(job("32", "Pending")));
  EXPECT_EQ(phase_of(cache), "Pending");
}

TEST(ObjectCacheOwnWrites, OpaqueResourceVersionsAreNeverCompared) {
  ObjectCache cache;
  cache.upsert(job("abc"));
  EXPECT_FALSE(cache.record_own_write(job("def", "Succeeded")));
  EXPECT_EQ(phase_of(cache), "Running");
  cache.upsert(job("xyz", "Failed"));  // the watch always wins when versions cannot be ordered
  EXPECT_EQ(phase_of(cache), "Failed");
  EXPECT_FALSE(cache.record_own_write(job("", "Succeeded", "job-b")));
  EXPECT_EQ(integer_resource_version(job("18446744073709551615")),
            std::nullopt);  // 20 digits: not trusted
  EXPECT_EQ(integer_resource_version(job("0042")), 42u);
}

TEST(ObjectCacheOwnWrites, AnUnknownObjectIsCachedWhenNewerThanItsKindsWatch) {
  ObjectCache cache;
  EXPECT_TRUE(cache.record_own_write(job("5", "Pending")));
  EXPECT_EQ(phase_of(cache), "Pending");
  EXPECT_THROW(cache.record_own_write(json::object{{"kind", "Job"}}), std::invalid_argument);
}

TEST(CacheScope, OwnWritesOutsideEveryWatchedScopeAreNotCached) {
  const LabelSelector managed = LabelSelector::parse("app.kubernetes.io/managed-by=nvcre");
  const std::vector<CacheScope> scopes{{"v1", "ConfigMap", "ns-a", managed},
                                       {"v1", "Node", "", {}}};
  auto config_map = [](const char* ns, json::object labels) {
    return json::value(json::object{
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", {{"name", "x"}, {"namespace", ns}, {"labels", std::move(labels)}}}});
  };
  EXPECT_TRUE(
      in_cache_scope(scopes, config_map("ns-a", {{"app.kubernetes.io/managed-by", "nvcre"}})));
  EXPECT_FALSE(in_cache_scope(
      scopes, config_map("ns-b", {{"app.kubernetes.io/managed-by", "nvcre"}})));  // namespace
  EXPECT_FALSE(in_cache_scope(scopes, config_map("ns-a", {})));                   // selector
  EXPECT_TRUE(in_cache_scope(
      scopes, json::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n"}}}}));
  EXPECT_FALSE(in_cache_scope(
      scopes,
      json::object{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "s"}}}}));
  EXPECT_FALSE(in_cache_scope({}, config_map("ns-a", {})));  // nothing watched, nothing cached
}

}  // namespace
}  // namespace nvcre::k8s
