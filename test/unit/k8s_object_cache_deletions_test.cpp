// What the informer cache knows beyond the objects it holds: which objects its watch saw deleted
// (proof of absence, so a reconcile confirming a child is gone needs no live read), and which of
// a kind's objects hold a value in a field (from an index, or by parsing only the candidates).
#include "k8s/cache_reader.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const ObjectRef kTrainJob{"trainer.kubeflow.org/v1alpha1", "TrainJob", "ns", "tj-a"};
constexpr std::string_view kJobRef = "/spec/jobRef/name";

json::value trainjob(std::string_view name, std::string_view resource_version,
                     std::string_view job = "job-a") {
  return json::object{
      {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
      {"kind", "TrainJob"},
      {"metadata",
       json::object{{"name", name}, {"namespace", "ns"}, {"resourceVersion", resource_version}}},
      {"spec", json::object{{"jobRef", json::object{{"name", job}}}}}};
}

TEST(ObjectCacheDeletions, OnlyAWatchDeletionIsProofOfAbsence) {
  ObjectCache cache;
  EXPECT_FALSE(cache.seen_deleted(kTrainJob)) << "never seen: unknown, not absent";
  cache.upsert(trainjob("tj-a", "5"));
  EXPECT_FALSE(cache.seen_deleted(kTrainJob));
  cache.erase(kTrainJob);  // dropped without a watch event (e.g. by a relist): still unknown
  EXPECT_FALSE(cache.seen_deleted(kTrainJob));
  cache.upsert(trainjob("tj-a", "6"));
  cache.erase(trainjob("tj-a", "7"));  // the watch's DELETED event
  EXPECT_TRUE(cache.seen_deleted(kTrainJob));
  EXPECT_EQ(cache.get(kTrainJob), nullptr);
  const CacheReader reader(cache);
  EXPECT_TRUE(static_cast<const CacheView&>(reader).seen_deleted(kTrainJob));
  EXPECT_FALSE(cache.seen_deleted({kTrainJob.api_version, kTrainJob.kind, "other", "tj-a"}));
}

TEST(ObjectCacheDeletions, TheNameCachedAgainIsNoLongerDeleted) {
  ObjectCache cache;
  cache.upsert(trainjob("tj-a", "5"));
  cache.erase(trainjob("tj-a", "6"));
  ASSERT_TRUE(cache.seen_deleted(kTrainJob));
  EXPECT_TRUE(cache.record_own_write(trainjob("tj-a", "8")));  // our create of a new one
  EXPECT_FALSE(cache.seen_deleted(kTrainJob));
  cache.erase(trainjob("tj-a", "9"));
  cache.upsert(trainjob("tj-a", "10"));  // someone else's, from the watch
  EXPECT_FALSE(cache.seen_deleted(kTrainJob));
  const ObjectCache copy = cache;
  EXPECT_FALSE(copy.seen_deleted(kTrainJob));
}

TEST(ObjectCacheDeletions, TheOldestDeletionsAreForgottenFirst) {
  ObjectCache cache;
  const std::size_t total = ObjectCache::kTombstones + 2;
  for (std::size_t i = 0; i < total; ++i)
    cache.erase(trainjob("tj-" + std::to_string(i), std::to_string(i + 1)));
  EXPECT_FALSE(cache.seen_deleted({kTrainJob.api_version, kTrainJob.kind, "ns", "tj-0"}));
  EXPECT_FALSE(cache.seen_deleted({kTrainJob.api_version, kTrainJob.kind, "ns", "tj-1"}));
  EXPECT_TRUE(cache.seen_deleted({kTrainJob.api_version, kTrainJob.kind, "ns", "tj-2"}));
  EXPECT_TRUE(cache.seen_deleted(
      {kTrainJob.api_version, kTrainJob.kind, "ns", "tj-" + std::to_string(total - 1)}));
}

TEST(ObjectCacheFieldIndex, AnUnindexedFieldIsFoundByReadingOnlyTheObjectsThatCanHoldIt) {
  ObjectCache cache;
  cache.upsert(trainjob("tj-a", "1", "job-a"));
  cache.upsert(trainjob("tj-b", "2", "job-b"));
  cache.upsert(trainjob("job-a-copy", "3", "job-c"));  // mentions job-a in its own name only
  const CacheReader reader(cache);
  const auto found =
      reader.list_by_field(kTrainJob.api_version, kTrainJob.kind, "ns", kJobRef, "job-a");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->at("metadata").at("name"), "tj-a");
  EXPECT_EQ(reader.parsed_count(), 2u) << "the object whose text cannot hold job-a is not parsed";
  EXPECT_TRUE(
      cache.list_by_field(kTrainJob.api_version, kTrainJob.kind, "ns", kJobRef, "job-z").empty());
  // A value the serializer escapes is not in the text verbatim: every object is read.
  cache.upsert(trainjob("tj-q", "4", "say \"hi\""));
  const auto quoted =
      cache.list_by_field(kTrainJob.api_version, kTrainJob.kind, "ns", kJobRef, "say \"hi\"");
  ASSERT_EQ(quoted.size(), 1u);
  EXPECT_EQ(quoted[0]->at("metadata").at("name"), "tj-q");
}

TEST(ObjectCacheFieldIndex, AnIndexedFieldIsAnsweredFromTheIndexAndFollowsEveryChange) {
  ObjectCache cache({}, {}, {{{kTrainJob.api_version, kTrainJob.kind}, {std::string(kJobRef)}}});
  auto names = [&](std::string_view ns, std::string_view job) {
    const CacheReader reader(cache);
    std::vector<std::string> out;
    for (const auto* object :
         reader.list_by_field(kTrainJob.api_version, kTrainJob.kind, ns, kJobRef, job))
      out.emplace_back(object->at("metadata").at("name").as_string());
    EXPECT_EQ(reader.parsed_count(), out.size()) << "only the matching objects are parsed";
    return out;
  };
  cache.upsert(trainjob("tj-b", "1", "job-a"));
  cache.upsert(trainjob("tj-a", "2", "job-a"));
  cache.upsert(trainjob("job-a", "3", "job-c"));
  cache.upsert(trainjob("tj-none", "4", ""));
  EXPECT_EQ(names("ns", "job-a"), (std::vector<std::string>{"tj-a", "tj-b"}));
  EXPECT_EQ(names("", "job-a"), (std::vector<std::string>{"tj-a", "tj-b"}));
  EXPECT_TRUE(names("other", "job-a").empty());
  EXPECT_EQ(cache.label_index_size(), 3u) << "an empty field is not indexed";

  cache.upsert(trainjob("tj-b", "5", "job-c"));  // its reference moves
  EXPECT_EQ(names("ns", "job-a"), std::vector<std::string>{"tj-a"});
  EXPECT_EQ(names("ns", "job-c"), (std::vector<std::string>{"job-a", "tj-b"}));
  cache.erase(trainjob("tj-a", "6", "job-a"));
  EXPECT_TRUE(names("ns", "job-a").empty());
  EXPECT_EQ(cache.label_index_size(), 2u) << "no stale entry is left behind";
  cache.clear_kind(kTrainJob.api_version, kTrainJob.kind);
  EXPECT_EQ(cache.label_index_size(), 0u);
}

}  // namespace
}  // namespace nvcre::k8s
