// Topology gauges end to end: the real manager against an in-process kube-sim of four AWS H100
// nodes labelled with example.com/rack, where pods on gpu-node-03 fail, and a Workflow of 2-node
// jobs partitioned by rack.
// - Racks a (gpu-node-00, gpu-node-01) and b (gpu-node-02, gpu-node-03): one group per rack; the
//   rack-a group succeeds and the rack-b group fails, so /metrics carries
//   nvcre_topology_validated_nodes for both rack-a nodes and nvcre_topology_failed_nodes for both
//   rack-b nodes, with the Workflow's namespace, name and topology key, beside its lifecycle
//   series (nvcre_workflow_status failed).
// - Racks a (gpu-node-00..02) and b (gpu-node-03): group-0 (gpu-node-00, gpu-node-01) and
//   group-1-overflow (gpu-node-00, gpu-node-02) stay in rack a and succeed; group-2-overflow
//   (gpu-node-01, gpu-node-03) spans both racks and fails. Its nodes are counted failed under their
//   own racks, read from their Nodes' labels (gpu-node-01 under a, gpu-node-03 under b), and
//   gpu-node-01 is no longer validated.
#include "k8s/metrics.hpp"
#include "test/support/embedded_manager.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <sstream>
#include <string>
#include <vector>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kNodes;
using nvcre::testing::kTrainingRuntimes;
using nvcre::testing::kWorkflows;

json::value runtime() {
  return json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "racks-runtime", "namespace": "it",
                 "labels": {"trainer.kubeflow.org/framework": "torch"}},
    "spec": {"mlPolicy": {"numNodes": 2, "torch": {"numProcPerNode": 8}},
             "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
               "template": {"spec": {"containers": [{"name": "node", "image": "pytorch",
                 "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}}]}}}})");
}

json::value workflow() {
  return json::parse(R"({
    "apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Workflow",
    "metadata": {"name": "racks", "namespace": "it"},
    "spec": {
      "jobTemplate": {"spec": {"workload": {"trainJob": {
        "runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime",
                       "name": "racks-runtime"},
        "trainer": {"image": "nvcr.io/nvidia/pytorch:26.01-py3",
                    "command": ["torchrun", "/workspace/allreduce.py"], "numNodes": 2}}}}},
      "orchestration": {"target": {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
                        "topology": {"topologyKey": "example.com/rack"}}}})");
}

class ManagerTopologyGauges : public nvcre::testing::EmbeddedManagerTest {
 protected:
  // Starts the manager with gpu-node-0<i> in rack racks[i].
  void start_with_racks(std::array<const char*, 4> racks) {
    manager::EmbeddedClusterOptions options;
    options.profile = "aws:h100:4";
    options.faulty_nodes = {"gpu-node-03"};
    options.trainer_step = std::chrono::milliseconds(30);
    start(std::move(options), metrics_, [this, racks] {
      for (int i = 0; i < 4; ++i) {
        const json::value patch = {{"metadata", {{"labels", {{"example.com/rack", racks[i]}}}}}};
        client_->merge_patch(kNodes, "", "gpu-node-0" + std::to_string(i), patch);
      }
      client_->create(kTrainingRuntimes, "it", runtime());
    });
  }

  // Runs the Workflow to its verdict (Failed: gpu-node-03 fails) and returns its groups.
  json::array run_to_failure() {
    client_->create(kWorkflows, "it", workflow());
    const json::value done = wait_for_verdict_object(kWorkflows, "racks");
    EXPECT_FALSE(done.is_null());
    if (done.is_null()) return {};
    EXPECT_EQ(nvcre::testing::verdict_of(done).type, "Failed");
    return done.at("status").at("orchestration").at("groups").as_array();
  }

  // Whether /metrics carries every line of `expected`, eventually.
  bool eventually_exposes(const std::vector<std::string>& expected) {
    return nvcre::test::eventually([&] {
      const std::string text = metrics_->render();
      for (const auto& line : expected)
        if (text.find(line) == std::string::npos) return false;
      return true;
    });
  }

  std::shared_ptr<k8s::Metrics> metrics_ = std::make_shared<k8s::Metrics>();
};

std::string series(const std::string& name, const std::string& domain, const std::string& node) {
  return name + R"({domain=")" + domain + R"(",namespace="it",node=")" + node +
         R"(",topology_key="example.com/rack",workflow="racks"} 1)";
}

// Every topology series of the Workflow in /metrics.
std::vector<std::string> topology_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("nvcre_topology_")) out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(ManagerTopologyGauges, EachNodeIsCountedUnderItsRackAsValidatedOrFailed) {
  start_with_racks({"a", "a", "b", "b"});
  run_to_failure();
  EXPECT_TRUE(eventually_exposes(
      {series("nvcre_topology_validated_nodes", "a", "gpu-node-00"),
       series("nvcre_topology_validated_nodes", "a", "gpu-node-01"),
       series("nvcre_topology_failed_nodes", "b", "gpu-node-02"),
       series("nvcre_topology_failed_nodes", "b", "gpu-node-03"),
       R"(nvcre_workflow_status{certification="",namespace="it",status="failed",workflow="racks"} 1)",
       R"(nvcre_workflow_status{certification="",namespace="it",status="in_progress",workflow="racks"} 0)"}))
      << metrics_->render();
  const std::string text = metrics_->render();
  EXPECT_EQ(text.find(R"(nvcre_topology_validated_nodes{domain="b")"), std::string::npos);
  EXPECT_EQ(text.find(R"(nvcre_topology_failed_nodes{domain="a")"), std::string::npos);
}

TEST_F(ManagerTopologyGauges, AnOverflowGroupsNodesAreCountedUnderTheirOwnRacks) {
  start_with_racks({"a", "a", "a", "b"});
  const json::array groups = run_to_failure();
  ASSERT_EQ(groups.size(), 3u) << json::serialize(groups);
  EXPECT_EQ(groups[2].at("nodes"), json::parse(R"(["gpu-node-01", "gpu-node-03"])"))
      << json::serialize(groups);
  EXPECT_EQ(groups[2].at("domains"), json::parse(R"(["a", "b"])")) << json::serialize(groups);
  const std::vector<std::string> expected{
      series("nvcre_topology_failed_nodes", "a", "gpu-node-01"),
      series("nvcre_topology_failed_nodes", "b", "gpu-node-03"),
      series("nvcre_topology_validated_nodes", "a", "gpu-node-00"),
      series("nvcre_topology_validated_nodes", "a", "gpu-node-02")};
  EXPECT_TRUE(eventually_exposes(expected)) << metrics_->render();
  EXPECT_EQ(topology_lines(metrics_->render()), expected);
}

}  // namespace
}  // namespace nvcre::actors
