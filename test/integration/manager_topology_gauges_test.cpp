// Topology gauges end to end: the real manager against an in-process kube-sim of four AWS H100
// nodes in two racks (example.com/rack a: gpu-node-00, gpu-node-01; b: gpu-node-02, gpu-node-03),
// where pods on gpu-node-03 fail. A Workflow partitioned by rack runs one group per rack; the
// rack-a group succeeds and the rack-b group fails, so /metrics carries
// nvcre_topology_validated_nodes for both rack-a nodes and nvcre_topology_failed_nodes for both
// rack-b nodes, with the Workflow's namespace,
// name and topology key, beside its lifecycle series (nvcre_workflow_status failed).
#include "k8s/metrics.hpp"
#include "test/support/embedded_manager.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

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
  void SetUp() override {
    manager::EmbeddedClusterOptions options;
    options.profile = "aws:h100:4";
    options.faulty_nodes = {"gpu-node-03"};
    options.trainer_step = std::chrono::milliseconds(30);
    start(std::move(options), metrics_, [this] {
      const char* racks[] = {"a", "a", "b", "b"};
      for (int i = 0; i < 4; ++i) {
        const json::value patch = {{"metadata", {{"labels", {{"example.com/rack", racks[i]}}}}}};
        client_->merge_patch(kNodes, "", "gpu-node-0" + std::to_string(i), patch);
      }
      client_->create(kTrainingRuntimes, "it", runtime());
    });
  }

  std::shared_ptr<k8s::Metrics> metrics_ = std::make_shared<k8s::Metrics>();
};

std::string series(const std::string& name, const std::string& domain, const std::string& node) {
  return name + R"({domain=")" + domain + R"(",namespace="it",node=")" + node +
         R"(",topology_key="example.com/rack",workflow="racks"} 1)";
}

TEST_F(ManagerTopologyGauges, EachNodeIsCountedUnderItsRackAsValidatedOrFailed) {
  client_->create(kWorkflows, "it", workflow());
  const json::value done = wait_for_verdict_object(kWorkflows, "racks");
  ASSERT_FALSE(done.is_null());
  EXPECT_EQ(nvcre::testing::verdict_of(done).type, "Failed");
  const std::vector<std::string> expected{
      series("nvcre_topology_validated_nodes", "a", "gpu-node-00"),
      series("nvcre_topology_validated_nodes", "a", "gpu-node-01"),
      series("nvcre_topology_failed_nodes", "b", "gpu-node-02"),
      series("nvcre_topology_failed_nodes", "b", "gpu-node-03"),
      R"(nvcre_workflow_status{certification="",namespace="it",status="failed",workflow="racks"} 1)",
      R"(nvcre_workflow_status{certification="",namespace="it",status="in_progress",workflow="racks"} 0)"};
  EXPECT_TRUE(nvcre::test::eventually([&] {
    const std::string text = metrics_->render();
    for (const auto& line : expected)
      if (text.find(line) == std::string::npos) return false;
    return true;
  })) << metrics_->render();
  const std::string text = metrics_->render();
  EXPECT_EQ(text.find(R"(nvcre_topology_validated_nodes{domain="b")"), std::string::npos);
  EXPECT_EQ(text.find(R"(nvcre_topology_failed_nodes{domain="a")"), std::string::npos);
}

}  // namespace
}  // namespace nvcre::actors
