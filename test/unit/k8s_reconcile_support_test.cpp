// The reconcile contract's building blocks: timestamps, the object cache, the plan rendering.
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

TEST(Rfc3339, ParsesAndFormatsUtcSeconds) {
  auto t = parse_rfc3339("2026-11-29T23:56:13Z");
  ASSERT_TRUE(t);
  EXPECT_EQ(format_rfc3339(*t), "2026-11-29T23:56:13Z");
  EXPECT_EQ(format_rfc3339_micro(*t + std::chrono::microseconds(1500)),
            "2026-11-29T23:56:13.001500Z");
}

TEST(Rfc3339, HonoursFractionsAndOffsets) {
  auto a = parse_rfc3339("2026-01-01T01:00:00.25+01:00");
  auto b = parse_rfc3339("2026-01-01T00:00:00Z");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(*a - *b).count(), 250);
}

TEST(Rfc3339, RejectsMalformedText) {
  for (const char* text :
       {"", "2026-01-01", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00",
        "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00.Z"}) {
    EXPECT_FALSE(parse_rfc3339(text)) << text;
  }
}

json::value object(std::string_view kind, std::string_view ns, std::string_view name,
                   json::object labels = {}, std::string_view owner_uid = {}) {
  json::object meta{{"name", name}, {"namespace", ns}, {"labels", std::move(labels)}};
  if (!owner_uid.empty()) meta["ownerReferences"] = json::array{json::object{{"uid", owner_uid}}};
  return json::object{{"apiVersion", "v1"}, {"kind", kind}, {"metadata", std::move(meta)}};
}

TEST(ObjectCache, ListsByKindNamespaceAndSelector) {
  ObjectCache cache;
  cache.upsert(object("Pod", "a", "p1", {{"app", "x"}}));
  cache.upsert(object("Pod", "b", "p2", {{"app", "y"}}));
  cache.upsert(object("Pod", "b", "p3", {{"app", "x"}}, "u1"));
  cache.upsert(object("PodTemplate", "a", "t1"));
  EXPECT_EQ(cache.list("v1", "Pod", "").size(), 3u);
  EXPECT_EQ(cache.list("v1", "Pod", "b").size(), 2u);
  EXPECT_EQ(cache.list("v1", "Pod", "", LabelSelector::parse("app=x")).size(), 2u);
  EXPECT_EQ(cache.list("v1", "Pod", "a", LabelSelector::parse("app=y")).size(), 0u);
  ASSERT_EQ(cache.owned_by("v1", "Pod", "b", "u1").size(), 1u);
  EXPECT_EQ(uid_of(*cache.owned_by("v1", "Pod", "b", "u1").front()), "");
  cache.clear_kind("v1", "Pod");
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.get(ObjectRef{"v1", "PodTemplate", "a", "t1"}), nullptr);
  EXPECT_THROW(cache.upsert(json::object{{"kind", "Pod"}}), std::invalid_argument);
}

TEST(ReconcilePlan, RendersActionsEventsAndRequeue) {
  ReconcilePlan plan;
  Action del{
      ActionVerb::Delete, ObjectRef{"v1", "ConfigMap", "ns", "cm"}, {}, std::string("uid-1")};
  del.ignore_not_found = true;
  plan.actions.push_back(del);
  plan.events.push_back(
      EventRecord{ObjectRef{"v1", "ConfigMap", "ns", "cm"}, "uid-1", "Normal", "Deleted", "gone"});
  plan.requeue_after = kImmediateRequeue;
  EXPECT_EQ(
      json::serialize(plan_to_json(plan)),
      R"({"actions":[{"verb":"Delete","target":{"apiVersion":"v1","kind":"ConfigMap","namespace":"ns","name":"cm"},)"
      R"("preconditionUID":"uid-1","ignoreNotFound":true}],"events":[{"regarding":{"apiVersion":"v1","kind":"ConfigMap",)"
      R"("namespace":"ns","name":"cm"},"type":"Normal","reason":"Deleted","note":"gone"}],"requeueAfterMs":50})");
  EXPECT_EQ(object_ref_from_json(object_ref_to_json(del.target)), del.target);
}

}  // namespace
}  // namespace nvcre::k8s
