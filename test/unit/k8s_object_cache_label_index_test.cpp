// The informer cache's label index: a list selecting key=value on an indexed label reads only the
// index entry, and must answer exactly what the full scan answers through every kind of write.
#include "k8s/cache_reader.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const ObjectCache::IndexedLabels kPodJobIndex{{{"v1", "Pod"}, {"job"}}};

json::value pod(std::string_view ns, std::string_view name, json::object labels,
                int resource_version = 1) {
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name},
                                {"namespace", ns},
                                {"labels", std::move(labels)},
                                {"resourceVersion", std::to_string(resource_version)}}}};
}

std::vector<std::string> names(const std::vector<const json::value*>& objects) {
  std::vector<std::string> out;
  for (const auto* object : objects) {
    out.push_back(std::string(object->at("metadata").at("namespace").as_string()) + "/" +
                  std::string(object->at("metadata").at("name").as_string()));
  }
  return out;
}

std::vector<std::string> listed(const ObjectCache& cache, std::string_view ns,
                                std::string_view selector) {
  const CacheReader reader(cache);
  return names(reader.list("v1", "Pod", ns, LabelSelector::parse(selector)));
}

TEST(ObjectCacheLabelIndex, AnIndexedEqualityReadsTheEntryInNamespaceNameOrder) {
  ObjectCache cache({}, kPodJobIndex);
  cache.upsert(pod("b", "p2", {{"job", "j1"}, {"role", "worker"}}));
  cache.upsert(pod("a", "p9", {{"job", "j1"}, {"role", "launcher"}}));
  cache.upsert(pod("a", "p1", {{"job", "j2"}}));
  cache.upsert(pod("a", "p3", {{"job", "j1"}}));
  EXPECT_EQ(listed(cache, "", "job=j1"), (std::vector<std::string>{"a/p3", "a/p9", "b/p2"}));
  EXPECT_EQ(listed(cache, "a", "job=j1"), (std::vector<std::string>{"a/p3", "a/p9"}));
  EXPECT_EQ(listed(cache, "a", "job in (j1),role=launcher"), (std::vector<std::string>{"a/p9"}));
  EXPECT_EQ(listed(cache, "a", "job=j3"), (std::vector<std::string>{}));
  EXPECT_EQ(listed(cache, "b", "role=worker"), (std::vector<std::string>{"b/p2"}))
      << "a selector on an unindexed key scans";
}

TEST(ObjectCacheLabelIndex, ACopysIndexIsItsOwnAndOutlivesTheOriginal) {
  auto original = std::make_unique<ObjectCache>(ObjectCache({}, kPodJobIndex));
  original->upsert(pod("a", "p1", {{"job", "j1"}}));
  original->upsert(pod("a", "p2", {{"job", "j1"}}));
  ObjectCache copy = *original;
  ObjectCache assigned({}, kPodJobIndex);
  assigned.upsert(pod("z", "gone", {{"job", "j1"}}));
  assigned = *original;
  original->upsert(pod("a", "p2", {{"job", "j2"}}, 2));  // the copies keep their own p2
  original.reset();
  for (const ObjectCache* cache : {&copy, &assigned}) {
    EXPECT_EQ(listed(*cache, "", "job=j1"), (std::vector<std::string>{"a/p1", "a/p2"}));
    EXPECT_EQ(cache->label_index_size(), 2u);
  }
}

TEST(ObjectCacheLabelIndex, RelabelDeleteAndRelistKeepTheIndexTrue) {
  ObjectCache cache({}, kPodJobIndex);
  cache.upsert(pod("a", "p1", {{"job", "j1"}}));
  cache.upsert(pod("a", "p1", {{"job", "j2"}}, 2));
  EXPECT_EQ(listed(cache, "a", "job=j1"), (std::vector<std::string>{}));
  EXPECT_EQ(listed(cache, "a", "job=j2"), (std::vector<std::string>{"a/p1"}));
  EXPECT_EQ(cache.label_index_size(), 1u) << "the old value's entry is gone";
  cache.upsert(pod("a", "p1", {}, 3));
  EXPECT_EQ(listed(cache, "a", "job=j2"), (std::vector<std::string>{}));
  EXPECT_EQ(cache.label_index_size(), 0u);
  cache.upsert(pod("a", "p2", {{"job", "j2"}}));
  cache.erase(ObjectRef{"v1", "Pod", "a", "p2"});
  EXPECT_EQ(listed(cache, "a", "job=j2"), (std::vector<std::string>{}));
  cache.upsert(pod("a", "p3", {{"job", "j3"}}));
  EXPECT_EQ(cache.label_index_size(), 1u);
  cache.clear_kind("v1", "Pod");
  EXPECT_EQ(listed(cache, "", "job=j3"), (std::vector<std::string>{}));
  EXPECT_EQ(cache.label_index_size(), 0u);
  cache.upsert(pod("a", "p3", {{"job", "j3"}}));
  EXPECT_EQ(listed(cache, "", "job=j3"), (std::vector<std::string>{"a/p3"}));
  const ObjectCache copy = cache;
  EXPECT_EQ(listed(copy, "", "job=j3"), (std::vector<std::string>{"a/p3"}));
}

// Random writes to an indexed and an unindexed cache; every list must agree.
TEST(ObjectCacheLabelIndex, AnswersWhatAFullScanAnswersUnderRandomWrites) {
  ObjectCache indexed({}, kPodJobIndex);
  ObjectCache scanned;
  std::mt19937 random(7);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
  const std::vector<std::string> namespaces{"a", "b", "c"};
  for (int step = 0; step < 3000; ++step) {
    const std::string ns = namespaces[static_cast<std::size_t>(pick(3))];
    const std::string name = "p" + std::to_string(pick(40));
    const int action = pick(10);
    if (action < 7) {
      json::object labels;
      if (pick(4) != 0) labels["job"] = "j" + std::to_string(pick(6));
      if (pick(2) != 0) labels["role"] = pick(2) != 0 ? "worker" : "launcher";
      const auto object = pod(ns, name, labels, step + 1);
      indexed.upsert(object);
      scanned.upsert(object);
    } else if (action < 9) {
      indexed.erase(ObjectRef{"v1", "Pod", ns, name});
      scanned.erase(ObjectRef{"v1", "Pod", ns, name});
    } else if (pick(20) == 0) {
      indexed.clear_kind("v1", "Pod");
      scanned.clear_kind("v1", "Pod");
    }
    const std::string job = "j" + std::to_string(pick(6));
    for (const std::string& selector : {"job=" + job, "job=" + job + ",role=worker"}) {
      for (const std::string& list_ns : {std::string(), ns}) {
        ASSERT_EQ(listed(indexed, list_ns, selector), listed(scanned, list_ns, selector))
            << "step " << step << ", selector " << selector << ", namespace '" << list_ns << "'";
      }
    }
  }
  std::size_t labelled = 0;
  const CacheReader reader(scanned);
  for (const auto* object : reader.list("v1", "Pod", "", LabelSelector::parse("job")))
    labelled += object != nullptr ? 1 : 0;
  EXPECT_EQ(indexed.label_index_size(), labelled) << "one entry per cached job label, no stale one";
}

}  // namespace
}  // namespace nvcre::k8s
