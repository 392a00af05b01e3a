// The actor shell against an in-process kube-sim, with small reconcile functions standing in for
// the real controllers: cache sync, changes queued per key, writes carried out, AlreadyExists fed
// back to the pure function with the live holder, and a reconciler that throws on every attempt
// isolated from the others while its object reports why (a ReconcileError event).
#include "actors/manager.hpp"

#include "k8s/metrics.hpp"
#include "k8s/object_cache.hpp"
#include "sim/kube_sim.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;

using nvcre::test::eventually;

const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};
const k8s::ResourceRef kEvents{"events.k8s.io", "v1", "events", true};

std::string annotation(const json::value& object, const char* key) {
  const auto* meta = object.at("metadata").as_object().if_contains("annotations");
  if (meta == nullptr || !meta->is_object()) return {};
  const auto* value = meta->as_object().if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string{};
}

bool owned_by(const json::value& object, const std::string& uid) {
  const auto* owners = object.at("metadata").as_object().if_contains("ownerReferences");
  if (owners == nullptr || !owners->is_array()) return false;
  for (const auto& owner : owners->as_array()) {
    if (owner.at("uid") == uid.c_str()) return true;
  }
  return false;
}

// Stamps every ConfigMap with annotation echo=<data.value>; creates "<name>-child" for ones
// labelled want-child, adopts that child when a create finds it already there and owned by it, and
// records "collision" when the name is held by a ConfigMap it does not own.
reconcile::Result echo_reconcile(const reconcile::Context& context) {
  reconcile::Result result;
  if (context.object == nullptr) return result;
  const auto& object = *context.object;
  auto ref = k8s::object_ref_of(object);
  if (ref.name == "poison") throw std::runtime_error("poisoned spec: value is not a number");
  if (ref.name.ends_with("-child")) return result;
  std::string want = std::string(object.at("data").at("value").as_string());
  // The holder of the child's name: ours (an earlier pass created it and the cache had not seen it
  // yet) is adopted; anyone else's is a collision.
  bool child_adopted = false;
  if (context.outcome && context.outcome->reason == "AlreadyExists") {
    if (!context.outcome->live_holder ||
        !owned_by(*context.outcome->live_holder, k8s::uid_of(object))) {
      result.plan.actions.push_back(
          k8s::make_action(k8s::ActionVerb::MergePatch, ref,
                           json::object{{"metadata", {{"annotations", {{"echo", "collision"}}}}}}));
      return result;
    }
    child_adopted = true;
  }
  if (annotation(object, "echo") == want) return result;
  if (k8s::labels_of(object).contains("want-child") && !child_adopted) {
    json::value child =
        json::object{{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata",
                      {{"name", ref.name + "-child"},
                       {"namespace", ref.ns},
                       {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                                    {"kind", "ConfigMap"},
                                                                    {"name", ref.name},
                                                                    {"uid", k8s::uid_of(object)},
                                                                    {"controller", true}}}}}}};
    result.plan.actions.push_back(
        k8s::make_action(k8s::ActionVerb::Create,
                         k8s::ObjectRef{"v1", "ConfigMap", ref.ns, ref.name + "-child"}, child));
  }
  result.plan.actions.push_back(
      k8s::make_action(k8s::ActionVerb::MergePatch, ref,
                       json::object{{"metadata", {{"annotations", {{"echo", want}}}}}}));
  result.plan.events.push_back(
      k8s::EventRecord{ref, k8s::uid_of(object), "Normal", "Echoed", "echo=" + want});
  return result;
}

// Creates "<name>-first" and "<name>-second" in one plan, then marks itself with annotation pair.
// A name held by someone else ends it with the collision noted (the children before it still
// ensured). The creates of the plan that went through before a later one failed reach the re-plan
// as held (ours), so they are not sent again.
reconcile::Result pair_reconcile(const reconcile::Context& context) {
  reconcile::Result result;
  if (context.object == nullptr) return result;
  const auto ref = k8s::object_ref_of(*context.object);
  if (!annotation(*context.object, "pair").empty()) return result;
  std::string verdict = "created";
  for (const std::string suffix : {"-first", "-second"}) {
    const k8s::ObjectRef child{"v1", "ConfigMap", ref.ns, ref.name + suffix};
    const k8s::ActionOutcome* known =
        reconcile::outcome_of(context, k8s::ActionVerb::Create, child);
    if (known == nullptr) {
      json::value object = json::object{
          {"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", child.name},
            {"namespace", child.ns},
            {"ownerReferences", json::array{json::object{{"apiVersion", "v1"},
                                                         {"kind", "ConfigMap"},
                                                         {"name", ref.name},
                                                         {"uid", k8s::uid_of(*context.object)},
                                                         {"controller", true}}}}}}};
      result.plan.actions.push_back(
          k8s::make_action(k8s::ActionVerb::Create, child, std::move(object)));
      continue;
    }
    if (known->reason != "AlreadyExists" || !known->live_holder ||
        !owned_by(*known->live_holder, k8s::uid_of(*context.object))) {
      verdict = "collision on " + child.name;
      break;
    }
  }
  result.plan.actions.push_back(
      k8s::make_action(k8s::ActionVerb::MergePatch, ref,
                       json::object{{"metadata", {{"annotations", {{"pair", verdict}}}}}}));
  return result;
}

// Counts its passes in the memo and stamps the count on the object (annotation pass) whenever
// data.value is new to it (annotation seen).
reconcile::Result counting_reconcile(const reconcile::Context& context) {
  reconcile::Result result;
  if (context.object == nullptr) return result;
  const std::int64_t passes =
      (context.memo.is_object() ? context.memo.at("passes").to_number<std::int64_t>() : 0) + 1;
  result.memo = json::object{{"passes", passes}};
  const std::string value(context.object->at("data").at("value").as_string());
  if (annotation(*context.object, "seen") == value) return result;
  result.plan.actions.push_back(k8s::make_action(
      k8s::ActionVerb::MergePatch, k8s::object_ref_of(*context.object),
      json::object{
          {"metadata", {{"annotations", {{"seen", value}, {"pass", std::to_string(passes)}}}}}}));
  return result;
}

json::value config_map(const std::string& name, const std::string& value,
                       json::object labels = {}) {
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", {{"name", name}, {"namespace", "shell"}, {"labels", std::move(labels)}}},
      {"data", {{"value", value}}}};
}

class ManagerShell : public ::testing::Test {
 protected:
  void SetUp() override {
    sim::KubeSimOptions sim_options;
    sim_options.api.bookmark_interval = std::chrono::milliseconds(200);
    sim_ = std::make_unique<sim::KubeSim>(sim_options);
    sim_->start();
    config_.server = sim_->url();
    config_.rate_limit.qps = -1;
    client_ = std::make_unique<k8s::RestClient>(config_);
    client_->create(
        {"", "v1", "namespaces", false}, "",
        json::object{
            {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "shell"}}}});
  }
  void TearDown() override {
    manager_.reset();
    sim_->stop();
  }

  void start_manager(reconcile::Function reconcile = echo_reconcile) {
    ManagerOptions options;
    options.metrics = metrics_;
    options.client = config_;
    options.instance = "shell-test";
    options.max_watch_timeout = std::chrono::seconds(5);
    options.watches.push_back(WatchSpec{kConfigMaps, "v1", "ConfigMap", ""});
    options.controllers.push_back(
        ControllerSpec{"echo", "v1", "ConfigMap", {"ConfigMap"}, std::move(reconcile)});
    manager_ = std::make_unique<Manager>(options);
    manager_->start();
  }

  json::value get(const std::string& name) { return client_->get(kConfigMaps, "shell", name); }

  std::unique_ptr<sim::KubeSim> sim_;
  k8s::ClientConfig config_;
  std::unique_ptr<k8s::RestClient> client_;
  std::unique_ptr<Manager> manager_;
  std::shared_ptr<k8s::Metrics> metrics_ = std::make_shared<k8s::Metrics>();
};

TEST_F(ManagerShell, ReconcilesExistingAndNewObjects) {
  client_->create(kConfigMaps, "shell", config_map("before", "1"));
  start_manager();
  ASSERT_TRUE(eventually([&] { return manager_->synced(); }));
  for (int i = 0; i < 20; ++i)
    client_->create(kConfigMaps, "shell", config_map("cm-" + std::to_string(i), std::to_string(i)));
  EXPECT_TRUE(eventually([&] { return annotation(get("before"), "echo") == "1"; }));
  for (int i = 0; i < 20; ++i) {
    EXPECT_TRUE(eventually([&] {
      return annotation(get("cm-" + std::to_string(i)), "echo") == std::to_string(i);
    })) << i;
  }
  // A later change is seen through the watch and reconciled again.
  client_->merge_patch(kConfigMaps, "shell", "cm-3", json::object{{"data", {{"value", "33"}}}});
  EXPECT_TRUE(eventually([&] { return annotation(get("cm-3"), "echo") == "33"; }));
}

TEST_F(ManagerShell, AlreadyExistsReachesThePureFunctionWithTheHolder) {
  client_->create(kConfigMaps, "shell",
                  config_map("parent-child", "foreign"));  // squats the child name
  start_manager();
  client_->create(kConfigMaps, "shell", config_map("parent", "p", {{"want-child", "yes"}}));
  EXPECT_TRUE(eventually([&] { return annotation(get("parent"), "echo") == "collision"; }));
  client_->create(kConfigMaps, "shell", config_map("other", "o", {{"want-child", "yes"}}));
  EXPECT_TRUE(eventually([&] { return annotation(get("other"), "echo") == "o"; }));
  EXPECT_NO_THROW(get("other-child"));
}

TEST_F(ManagerShell, CreatesThatWentThroughReachTheReplanAsHeld) {
  client_->create(kConfigMaps, "shell", config_map("pair-second", "foreign"));  // squats a name
  start_manager(pair_reconcile);
  client_->create(kConfigMaps, "shell", config_map("pair", "p"));
  EXPECT_TRUE(
      eventually([&] { return annotation(get("pair"), "pair") == "collision on pair-second"; }));
  // The first child was created once: the re-plan after the second's AlreadyExists knew it.
  EXPECT_EQ(sim_->api().request_log().create_attempts("configmaps", "shell", "pair-first"), 1u);
  EXPECT_TRUE(owned_by(get("pair-first"), k8s::uid_of(get("pair"))));
}

TEST_F(ManagerShell, AnIdleReconcilerEndsAndItsMemoReachesTheNextOne) {
  start_manager(counting_reconcile);
  client_->create(kConfigMaps, "shell", config_map("counted", "1"));
  EXPECT_TRUE(eventually([&] { return annotation(get("counted"), "pass") == "1"; }));
  // Idle, its reconciler actor ends (no actor is left for the key)...
  EXPECT_TRUE(eventually([&] {
    return metrics_->render().find("nvcre_reconciler_actors{controller=\"echo\"} 0\n") !=
           std::string::npos;
  }));
  // ...and the next pass, on a new actor, counts on from the memo the controller kept.
  client_->merge_patch(kConfigMaps, "shell", "counted", json::object{{"data", {{"value", "2"}}}});
  ASSERT_TRUE(eventually([&] { return annotation(get("counted"), "seen") == "2"; }));
  EXPECT_GE(std::stoi(annotation(get("counted"), "pass")), 3);
}

TEST_F(ManagerShell, ACrashingReconcilerIsIsolatedAndReportsWhy) {
  start_manager();
  client_->create(kConfigMaps, "shell", config_map("poison", "x"));
  for (int i = 0; i < 30; ++i)
    client_->create(kConfigMaps, "shell", config_map("ok-" + std::to_string(i), "v"));
  for (int i = 0; i < 30; ++i) {
    EXPECT_TRUE(eventually([&] {
      return annotation(get("ok-" + std::to_string(i)), "echo") == "v";
    })) << i;
  }
  auto crash_events = [&] {
    int count = 0;
    const json::value events = client_->list(kEvents, "shell");
    for (const auto& event : events.at("items").as_array()) {
      if (event.at("reason") == "ReconcileError" && event.at("regarding").at("name") == "poison") {
        EXPECT_NE(
            std::string(event.at("note").as_string()).find("poisoned spec: value is not a number"),
            std::string::npos);
        ++count;
      }
    }
    return count;
  };
  // Retried with backoff: the crash is reported more than once, and the others were not held up.
  EXPECT_TRUE(eventually([&] { return crash_events() >= 2; }));
  EXPECT_EQ(annotation(get("poison"), "echo"), "");
}

}  // namespace
}  // namespace nvcre::actors
