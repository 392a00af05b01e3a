// The informer cache's storage: objects kept as text plus an index (CachedObject), parsed on
// demand by a CacheReader whose DOMs live for one read, or kept parsed for chosen kinds, with the
// ObjectCache semantics the reconcilers rely on (ordering, label selection, owned_by) unchanged.
#include "k8s/cache_reader.hpp"
#include "k8s/cached_object.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

json::value pod(std::string_view ns, std::string_view name, json::object labels = {},
                json::array owner_uids = {}, std::string_view resource_version = "7") {
  json::array owners;
  for (const auto& uid : owner_uids) owners.push_back(json::object{{"kind", "Job"}, {"uid", uid}});
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", json::object{{"namespace", ns},
                                                {"name", name},
                                                {"resourceVersion", resource_version},
                                                {"labels", std::move(labels)},
                                                {"ownerReferences", std::move(owners)}}},
                      {"spec", json::object{{"nodeName", "node-1"}}}};
}

std::string name_of(const json::value* object) {
  return std::string(object->at("metadata").at("name").as_string());
}

TEST(CachedObject, KeepsTheObjectAsTextAndAnswersItsIndexWithoutParsing) {
  const json::value original =
      pod("ns", "p", {{"app", "x"}, {"tier", ""}, {"count", 3}}, {"u1", "u2"}, "0042");
  const CachedObject compact(original, CachedObject::Form::Text);
  EXPECT_EQ(compact.parse(), original);
  EXPECT_EQ(compact.kept_parsed(), nullptr);
  EXPECT_EQ(compact.labels(),
            (Labels{{"app", "x"}, {"tier", ""}}));  // non-string values are no labels
  EXPECT_EQ(compact.label("app"), "x");
  EXPECT_EQ(compact.label("tier"), "");  // present and empty is not absent
  EXPECT_EQ(compact.label("count"), std::nullopt);
  EXPECT_EQ(compact.label("u1"), std::nullopt);  // an owner uid is not a label
  EXPECT_TRUE(compact.has_owner("u2"));
  EXPECT_FALSE(compact.has_owner("u3"));
  EXPECT_FALSE(compact.has_owner("x"));  // a label value is not an owner
  EXPECT_EQ(compact.resource_version(), 42u);
}

TEST(CachedObject, KeptParsedAnswersTheSame) {
  const json::value original = pod("ns", "p", {{"app", "x"}}, {"u1"}, "9");
  const CachedObject kept(original, CachedObject::Form::Parsed);
  ASSERT_NE(kept.kept_parsed(), nullptr);
  EXPECT_EQ(*kept.kept_parsed(), original);
  EXPECT_EQ(kept.parse(), original);
  EXPECT_EQ(kept.labels(), (Labels{{"app", "x"}}));
  EXPECT_TRUE(kept.has_owner("u1"));
  EXPECT_EQ(kept.resource_version(), 9u);
}

TEST(CachedObject, RoundTripsAwkwardStringsAndMissingParts) {
  const std::string long_value(300, 'v');  // a length prefix longer than one byte
  const json::value original =
      pod("ns", "p", {{std::string("a\0b", 3), long_value}}, {std::string("\0", 1)}, "abc");
  const CachedObject compact(original, CachedObject::Form::Text);
  EXPECT_EQ(compact.parse(), original);
  EXPECT_EQ(compact.labels(), (Labels{{std::string("a\0b", 3), long_value}}));
  EXPECT_EQ(compact.label(std::string("a\0b", 3)), long_value);
  EXPECT_EQ(compact.label("a"), std::nullopt);
  EXPECT_TRUE(compact.has_owner(std::string("\0", 1)));
  EXPECT_EQ(compact.resource_version(), std::nullopt);  // opaque versions are never compared

  const CachedObject bare(json::object{{"kind", "Pod"}}, CachedObject::Form::Text);
  EXPECT_TRUE(bare.labels().empty());
  EXPECT_FALSE(bare.has_owner(""));
  // As before: an ownerReference without a uid matches the empty uid.
  const CachedObject uid_less(
      json::object{{"metadata", {{"ownerReferences", json::array{json::object{}}}}}},
      CachedObject::Form::Text);
  EXPECT_TRUE(uid_less.has_owner(""));
}

TEST(CacheReader, ParsesOnlyWhatItHandsOutOnceAndKeepsItsAddress) {
  ObjectCache cache;
  cache.upsert(pod("a", "p1", {{"app", "x"}}, {"u1"}));
  cache.upsert(pod("b", "p2", {{"app", "y"}}, {"u1"}));
  cache.upsert(pod("b", "p3", {{"app", "x"}}, {"u2"}));
  const CacheReader reader(cache);
  EXPECT_EQ(reader.parsed_count(), 0u);
  const auto matches = reader.list("v1", "Pod", "", LabelSelector::parse("app=x"));
  ASSERT_EQ(matches.size(), 2u);
  EXPECT_EQ(reader.parsed_count(), 2u);  // p2 was selected out by its stored labels
  const json::value* p3 = reader.get({"v1", "Pod", "b", "p3"});
  EXPECT_EQ(p3, matches[1]);  // the same DOM, not a second parse
  EXPECT_EQ(reader.parsed_count(), 2u);
  const auto owned = reader.owned_by("v1", "Pod", "b", "u1");
  ASSERT_EQ(owned.size(), 1u);
  EXPECT_EQ(name_of(owned.front()), "p2");
  EXPECT_EQ(reader.get({"v1", "Pod", "b", "p1"}), nullptr);
  EXPECT_EQ(reader.get({"v1", "Node", "", "p1"}), nullptr);
}

TEST(CacheReader, CopiesOfWhatItHandsOutOutliveIt) {
  ObjectCache cache;
  cache.upsert(pod("a", "p1", {{"app", "x"}}));
  json::value copy;
  {
    const CacheReader reader(cache);
    copy = reader.get({"v1", "Pod", "a", "p1"})->at("metadata");
  }
  EXPECT_EQ(copy.at("labels").at("app"), "x");
  copy.as_object()["extra"] = "grows on its own memory";
  EXPECT_EQ(copy.at("extra"), "grows on its own memory");
}

TEST(CacheReader, HandsOutKeptParsedKindsWithoutParsing) {
  ObjectCache cache(std::set<ObjectCache::KindKey>{{"v1", "Node"}});
  cache.upsert(json::object{{"apiVersion", "v1"},
                            {"kind", "Node"},
                            {"metadata", {{"name", "n1"}, {"labels", {{"gpu", "true"}}}}}});
  cache.upsert(
      json::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n2"}}}});
  cache.upsert(pod("a", "p1"));
  const CacheReader first(cache);
  const CacheReader second(cache);
  const auto nodes = first.list("v1", "Node", "", LabelSelector::parse("gpu=true"));
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes.front(),
            second.get({"v1", "Node", "", "n1"}));  // the cache's own DOM, shared by readers
  EXPECT_EQ(first.parsed_count(), 0u);
  ASSERT_NE(first.get({"v1", "Pod", "a", "p1"}), nullptr);
  EXPECT_EQ(first.parsed_count(), 1u);  // other kinds are parsed per reader
  const ObjectCache copy = cache;       // copies keep the policy
  EXPECT_EQ(CacheReader(copy).get({"v1", "Node", "", "n2"}), copy.get({"v1", "Node", "", "n2"}));
}

TEST(ObjectCacheStorage, ListsInNamespaceNameOrderPerKind) {
  ObjectCache cache;
  cache.upsert(pod("b", "p2"));
  cache.upsert(pod("a", "p9"));
  cache.upsert(pod("b", "p1"));
  cache.upsert(
      json::object{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}});
  cache.upsert(json::object{{"apiVersion", "v2"},
                            {"kind", "Pod"},
                            {"metadata", {{"namespace", "a"}, {"name", "other"}}}});
  std::vector<std::string> names;
  for (const auto* object : cache.list("v1", "Pod", "")) names.push_back(name_of(object));
  EXPECT_EQ(names, (std::vector<std::string>{"p9", "p1", "p2"}));
  names.clear();
  for (const auto* object : cache.list("v1", "Pod", "b")) names.push_back(name_of(object));
  EXPECT_EQ(names, (std::vector<std::string>{"p1", "p2"}));
  EXPECT_TRUE(cache.list("v1", "Pod", "c").empty());
  EXPECT_EQ(cache.size(), 5u);
  cache.clear_kind("v1", "Pod");
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_NE(cache.get({"v2", "Pod", "a", "other"}), nullptr);
}

TEST(ObjectCacheStorage, ItsOwnViewKeepsPointersUntilTheNextWrite) {
  ObjectCache cache;
  cache.upsert(pod("a", "p1", {{"app", "x"}}));
  const json::value* first = cache.get({"v1", "Pod", "a", "p1"});
  EXPECT_EQ(cache.get({"v1", "Pod", "a", "p1"}), first);
  EXPECT_EQ(cache.list("v1", "Pod", "").front(), first);
  cache.upsert(pod("a", "p1", {{"app", "y"}}, {}, "8"));
  EXPECT_EQ(cache.get({"v1", "Pod", "a", "p1"})->at("metadata").at("labels").at("app"), "y");
  cache.erase(ObjectRef{"v1", "Pod", "a", "p1"});
  EXPECT_EQ(cache.get({"v1", "Pod", "a", "p1"}), nullptr);
}

TEST(ObjectCacheStorage, CopiesAreIndependent) {
  ObjectCache original;
  original.upsert(pod("a", "p1"));
  ASSERT_NE(original.get({"v1", "Pod", "a", "p1"}),
            nullptr);  // the original's own view is populated
  ObjectCache copy = original;
  original.erase(ObjectRef{"v1", "Pod", "a", "p1"});
  EXPECT_EQ(original.get({"v1", "Pod", "a", "p1"}), nullptr);
  ASSERT_NE(copy.get({"v1", "Pod", "a", "p1"}), nullptr);
  ObjectCache moved = std::move(copy);
  EXPECT_NE(moved.get({"v1", "Pod", "a", "p1"}), nullptr);
  copy = moved;  // a moved-from cache can be assigned again
  EXPECT_EQ(copy.size(), 1u);
}

}  // namespace
}  // namespace nvcre::k8s
