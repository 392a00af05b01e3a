// Which answers the manager caches as its own writes (read-your-writes), and that a recorded one
// is read back while one outside every watch's scope is not.
#include "actors/own_writes.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using k8s::ActionVerb;

json::value config_map(json::object extra_metadata = {}) {
  json::object metadata{{"name", "cm"}, {"namespace", "ns"}, {"resourceVersion", "7"}};
  for (auto& [key, value] : extra_metadata) metadata[key] = value;
  return json::object{
      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", std::move(metadata)}};
}

TEST(OwnWrites, AWritesAnswerIsTheObjectAsItNowStands) {
  for (auto verb : {ActionVerb::Create, ActionVerb::Update, ActionVerb::MergePatch,
                    ActionVerb::MergePatchStatus, ActionVerb::UpdateStatus}) {
    EXPECT_TRUE(answer_is_current_object(verb, config_map())) << k8s::to_string(verb);
  }
  EXPECT_FALSE(answer_is_current_object(ActionVerb::LiveGet, config_map()));
  EXPECT_FALSE(answer_is_current_object(ActionVerb::Create, json::value(nullptr)));
}

TEST(OwnWrites, ADeletesAnswerCountsOnlyWhileAFinalizerHoldsTheObject) {
  const json::value held =
      config_map({{"deletionTimestamp", "2026-11-30T18:00:00Z"}, {"finalizers", {"x/hold"}}});
  EXPECT_TRUE(answer_is_current_object(ActionVerb::Delete, held));
  // Gone at once: the answer is its last state, or a Status; a pod in its grace period has no
  // finalizer.
  EXPECT_FALSE(answer_is_current_object(ActionVerb::Delete, config_map()));
  EXPECT_FALSE(answer_is_current_object(
      ActionVerb::Delete, config_map({{"deletionTimestamp", "2026-11-30T18:00:00Z"}})));
  EXPECT_FALSE(answer_is_current_object(
      ActionVerb::Delete,
      json::object{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Success"}}));
}

TEST(OwnWrites, RecordsOnlyWhatAWatchWouldDeliver) {
  SharedCache cache;
  const k8s::ObjectRef ref{"v1", "ConfigMap", "ns", "cm"};
  EXPECT_FALSE(record_own_write(cache, {{"v1", "ConfigMap", "other-ns", {}}}, config_map()));
  EXPECT_FALSE(cache.read([&](const k8s::CacheView& view) { return view.get(ref) != nullptr; }));
  EXPECT_TRUE(record_own_write(cache, {{"v1", "ConfigMap", "ns", {}}}, config_map()));
  EXPECT_TRUE(cache.read([&](const k8s::CacheView& view) { return view.get(ref) != nullptr; }));
}

}  // namespace
}  // namespace nvcre::actors
