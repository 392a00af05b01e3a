// What the informer cache knows beyond the objects it holds: which objects its watch saw deleted
// (proof of absence, so a reconcile confirming a child is gone needs no live read), and which of
// a kind's objects can mention a name (so a lookup by a field parses only the candidates).
#include "k8s/cache_reader.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const ObjectRef kTrainJob{"trainer.kubeflow.org/v1alpha1", "TrainJob", "ns", "tj-a"};

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

TEST(ObjectCacheDeletions, ListMentioningLeavesOutOnlyObjectsThatCannotNameIt) {
  ObjectCache cache;
  cache.upsert(trainjob("tj-a", "1", "job-a"));
  cache.upsert(trainjob("tj-b", "2", "job-b"));
  cache.upsert(trainjob("job-a-copy", "3", "job-c"));  // mentions job-a in its own name
  const CacheReader reader(cache);
  const auto found = reader.list_mentioning(kTrainJob.api_version, kTrainJob.kind, "ns", "job-a");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0]->at("metadata").at("name"), "job-a-copy");
  EXPECT_EQ(found[1]->at("metadata").at("name"), "tj-a");
  EXPECT_EQ(reader.parsed_count(), 2u) << "the object that cannot name job-a is not parsed";
  EXPECT_EQ(cache.list_mentioning(kTrainJob.api_version, kTrainJob.kind, "ns", "job-z").size(), 0u);
}

}  // namespace
}  // namespace nvcre::k8s
