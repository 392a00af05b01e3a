// Node health rules end to end: the real manager against an in-process kube-sim whose node
// gpu-node-02 reports GPUHealthy=False a few Trainer steps into a job there (--node-condition).
// A Job on gpu-node-01 and gpu-node-02 whose health rule looks for that condition gets
// HardwareFailed naming gpu-node-02 alone, with its metrics; a Job whose rule the engine cannot
// run is failed before its TrainJob exists, with a message naming the construct.
#include "k8s/metrics.hpp"
#include "test/support/eventually.hpp"
#include "test/support/embedded_manager.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kJobs;
using nvcre::testing::kNodes;
using nvcre::testing::kTrainingRuntimes;
using nvcre::testing::kTrainJobs;

constexpr const char* kGpuConditionRule =
    R"(node.status.conditions.exists(c, c.type == "GPUHealthy" && c.status == "False"))";

json::value runtime() {
  return json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "torch", "namespace": "it"},
    "spec": {"mlPolicy": {"numNodes": 1},
             "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
               "template": {"spec": {"containers": [{"name": "node", "image": "pytorch",
                 "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}}]}}}})");
}

// A Job as the Workflow controller would write it for a group of gpu-node-01 and gpu-node-02.
json::value job(const std::string& name, const std::string& health_rule) {
  json::value job = json::parse(R"({
    "apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Job",
    "metadata": {"namespace": "it", "annotations": {
      "nvcre.nvidia.com/group-nodes": "gpu-node-01,gpu-node-02"}},
    "spec": {"workload": {"trainJob": {
      "runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime",
                     "name": "torch"},
      "trainer": {"numNodes": 2},
      "runtimePatches": [{"manager": "nvcre.nvidia.com/controller", "trainingRuntimeSpec": {
        "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
          "template": {"spec": {"affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
              {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                     "values": ["gpu-node-01", "gpu-node-02"]}]}]}}}}}}}}]}}}}]}}}})");
  job.at("metadata").as_object()["name"] = name;
  job.at("spec").as_object()["nodeHealthMonitor"] = {{"cel", {{"expression", health_rule}}}};
  return job;
}

using nvcre::testing::condition;
using nvcre::testing::text;

class ManagerNodeHealth : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void SetUp() override {
    manager::EmbeddedClusterOptions options;
    options.node_conditions = {"gpu-node-02=GPUHealthy"};
    options.trainer_step = std::chrono::milliseconds(100);
    // Runs long enough that the rule sees the fault while the pods still run.
    options.trainer_run = std::chrono::minutes(2);
    start(std::move(options), metrics_);
    client_->create(kTrainingRuntimes, "it", runtime());
  }

  json::value job_named(const std::string& name) { return client_->get(kJobs, "it", name); }

  std::shared_ptr<k8s::Metrics> metrics_ = std::make_shared<k8s::Metrics>();
};

TEST_F(ManagerNodeHealth, ACustomRuleFlipsHardwareFailedOnTheFaultyNodeOnly) {
  client_->create(kJobs, "it", job("watched", kGpuConditionRule));
  ASSERT_TRUE(nvcre::test::eventually(
      [&] { return text(condition(job_named("watched"), "HardwareFailed"), "status") == "True"; },
      std::chrono::seconds(60)))
      << json::serialize(job_named("watched"));

  const json::value watched = job_named("watched");
  const auto* hardware = condition(watched, "HardwareFailed");
  EXPECT_EQ(text(hardware, "reason"), "HardwareFailureDetected");
  EXPECT_EQ(text(hardware, "message"), "Hardware failure detected on node(s): [gpu-node-02]");
  const auto& failed = watched.at("status").at("failedNodes").as_array();
  ASSERT_EQ(failed.size(), 1U) << json::serialize(watched);
  EXPECT_EQ(failed[0].at("name"), "gpu-node-02");
  EXPECT_EQ(failed[0].at("reason"), "HardwareFailureDetected");
  EXPECT_EQ(failed[0].at("message"), "Hardware failure detected by node health check");
  // HardwareFailed is not a verdict on the run: the workload goes on.
  EXPECT_NE(text(condition(watched, "Failed"), "status"), "True");

  // The node the rule read: the sim turned its GPUHealthy condition False, and only its.
  auto gpu_healthy = [&](const std::string& node) {
    return text(condition(client_->get(kNodes, "", node), "GPUHealthy"), "status");
  };
  EXPECT_EQ(gpu_healthy("gpu-node-02"), "False");
  EXPECT_EQ(gpu_healthy("gpu-node-01"), "");

  const std::string labels = R"(job="watched",namespace="it")";
  EXPECT_TRUE(nvcre::test::eventually([&] {
    const std::string text = metrics_->render();
    return text.find("nvcre_job_failed_nodes{" + labels + R"(,workflow=""} 1)") !=
               std::string::npos &&
           text.find("nvcre_hardware_failed_jobs_total{" + labels + R"(,workflow=""} 1)") !=
               std::string::npos &&
           text.find("nvcre_hardware_failures_detected_total{" + labels +
                     R"(,node="gpu-node-02",workflow=""} 1)") != std::string::npos;
  })) << metrics_->render();
  EXPECT_EQ(metrics_->render().find(R"(node="gpu-node-01")"), std::string::npos);
}

TEST_F(ManagerNodeHealth, ARuleTheEngineCannotRunIsRefusedBeforeTheWorkloadExists) {
  client_->create(
      kJobs, "it",
      job("refused", R"(node.metadata.creationTimestamp < timestamp("2026-01-01T00:00:00Z"))"));
  ASSERT_TRUE(nvcre::test::eventually([&] {
    return text(condition(job_named("refused"), "Failed"), "status") == "True";
  })) << json::serialize(job_named("refused"));
  const json::value refused = job_named("refused");
  const auto* failed = condition(refused, "Failed");
  EXPECT_EQ(text(failed, "reason"), "WorkloadCreationError");
  const std::string message = text(failed, "message");
  EXPECT_TRUE(
      message.starts_with("spec.nodeHealthMonitor.cel.expression: CEL compilation error: "
                          "unsupported CEL construct \"timestamp\" at position 35 "
                          "(unknown function); supported: the variable node"))
      << message;
  EXPECT_TRUE(client_->list(kTrainJobs, "it").at("items").as_array().empty());
  EXPECT_EQ(condition(refused, "HardwareFailed"), nullptr);
}

}  // namespace
}  // namespace nvcre::actors
