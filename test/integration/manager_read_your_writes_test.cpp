// Read-your-writes through the real actor shell: a reconcile that runs right after its own write
// (requeue 1 ms, well inside a watch hop) must read what it wrote. Without it, the conditional
// patch of the next pass carries a stale resourceVersion (409) and a create is attempted again
// (AlreadyExists): each costs a round trip on the user's critical path.
#include "actors/manager.hpp"

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
constexpr int kSteps = 15;

std::string data_at(const json::value& object, const char* key) {
  const auto* data = object.as_object().if_contains("data");
  const auto* value =
      data == nullptr || !data->is_object() ? nullptr : data->as_object().if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string{};
}

// Counts data.count up to kSteps, one conditional patch per pass, and creates "<name>-child" once,
// each pass deciding only from the cache.
reconcile::Result counting_reconcile(const reconcile::Context& context) {
  reconcile::Result result;
  if (context.object == nullptr) return result;
  const auto& object = *context.object;
  const auto ref = k8s::object_ref_of(object);
  if (ref.name.ends_with("-child")) return result;
  const k8s::ObjectRef child{"v1", "ConfigMap", ref.ns, ref.name + "-child"};
  if (context.cache.get(child) == nullptr) {
    json::value body = json::object{{"apiVersion", "v1"},
                                    {"kind", "ConfigMap"},
                                    {"metadata", {{"name", child.name}, {"namespace", child.ns}}}};
    result.plan.actions.push_back(
        k8s::make_action(k8s::ActionVerb::Create, child, std::move(body)));
  }
  const std::string text = data_at(object, "count");
  const int count = text.empty() ? 0 : std::stoi(text);
  if (count < kSteps) {
    const auto& version = object.at("metadata").at("resourceVersion");
    result.plan.actions.push_back(
        k8s::make_action(k8s::ActionVerb::MergePatch, ref,
                         json::object{{"metadata", {{"resourceVersion", version}}},
                                      {"data", {{"count", std::to_string(count + 1)}}}}));
  }
  if (!result.plan.actions.empty()) result.plan.requeue_after = std::chrono::milliseconds(1);
  return result;
}

bool is_deleting(const json::value& object) {
  return object.at("metadata").as_object().contains("deletionTimestamp");
}

// Deletes its ConfigMap until the cache shows it deleting (a finalizer holds it), looking again
// after 1 ms: well before the watch brings the deletion.
reconcile::Result deleting_reconcile(const reconcile::Context& context) {
  reconcile::Result result;
  if (context.object == nullptr || is_deleting(*context.object)) return result;
  result.plan.actions.push_back(
      k8s::make_action(k8s::ActionVerb::Delete, k8s::object_ref_of(*context.object)));
  result.plan.requeue_after = std::chrono::milliseconds(1);
  return result;
}

// kube-sim with the namespace "ryw", a client of it, and the options of a manager that watches the
// ConfigMaps there with one controller.
struct RywCluster {
  sim::KubeSim sim{sim::KubeSimOptions{}};
  k8s::ClientConfig config;
  std::unique_ptr<k8s::RestClient> client;

  RywCluster() {
    sim.start();
    config.server = sim.url();
    config.rate_limit.qps = -1;
    client = std::make_unique<k8s::RestClient>(config);
    client->create(
        {"", "v1", "namespaces", false}, "",
        json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ryw"}}}});
  }
  ~RywCluster() { sim.stop(); }

  ManagerOptions manager_options(const std::string& instance, reconcile::Function reconcile) const {
    ManagerOptions options;
    options.client = config;
    options.instance = instance;
    options.watch_namespace = "ryw";
    options.watches.push_back(WatchSpec{kConfigMaps, "v1", "ConfigMap", ""});
    options.controllers.push_back(
        ControllerSpec{instance, "v1", "ConfigMap", {}, std::move(reconcile)});
    return options;
  }

  void create_config_map(const std::string& name, json::array finalizers = {}) {
    json::object metadata{{"name", name}, {"namespace", "ryw"}};
    if (!finalizers.empty()) metadata["finalizers"] = std::move(finalizers);
    client->create(
        kConfigMaps, "ryw",
        json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}});
  }
};

TEST(ManagerReadYourWrites, TheNextPassSeesItsDeleteOfAnObjectAFinalizerHolds) {
  RywCluster cluster;
  const std::vector<std::string> names{"a", "b", "c", "d"};
  for (const auto& name : names) cluster.create_config_map(name, {"test/hold"});
  Manager manager(cluster.manager_options("ryw-delete-test", deleting_reconcile));
  manager.start();
  for (const auto& name : names) {
    EXPECT_TRUE(eventually([&] {
      return is_deleting(cluster.client->get(kConfigMaps, "ryw", name));
    })) << name;
  }
  std::this_thread::sleep_for(
      std::chrono::milliseconds(200));  // a second delete would come 1 ms after the first
  manager.stop();
  EXPECT_EQ(cluster.sim.api().request_log().requests("delete", 200), names.size());
}

TEST(ManagerReadYourWrites, TheNextPassReadsItsOwnWritesWithoutConflictsOrDuplicateCreates) {
  RywCluster cluster;
  Manager manager(cluster.manager_options("ryw-test", counting_reconcile));
  manager.start();
  ASSERT_TRUE(eventually([&] { return manager.synced(); }));

  const std::vector<std::string> names{"a", "b", "c", "d"};
  for (const auto& name : names) cluster.create_config_map(name);
  for (const auto& name : names) {
    EXPECT_TRUE(eventually([&] {
      return data_at(cluster.client->get(kConfigMaps, "ryw", name), "count") ==
             std::to_string(kSteps);
    })) << name;
  }
  manager.stop();
  const auto& log = cluster.sim.api().request_log();
  EXPECT_EQ(log.requests("patch", 409), 0u);
  EXPECT_EQ(log.requests("patch", 200), names.size() * kSteps);
  for (const auto& name : names) {
    EXPECT_EQ(log.create_attempts("configmaps", "ryw", name + "-child"), 1u) << name;
  }
}

}  // namespace
}  // namespace nvcre::actors
