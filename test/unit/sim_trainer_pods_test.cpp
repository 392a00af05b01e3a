// kube-sim's Trainer plans pods as Kubeflow Trainer does: spec.trainer's env adds to the trainer
// container's env from the runtime, replacing only the variables it names.
#include "sim/trainer_pods.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace nvcre::sim::trainer {
namespace {

namespace json = boost::json;

std::map<std::string, std::string> env_of(const ReplicatedJobPlan& plan) {
  std::map<std::string, std::string> env;
  const auto& container = plan.pod_template.at("spec").at("containers").as_array().front();
  for (const auto& item : container.at("env").as_array())
    env[std::string(item.at("name").as_string())] = std::string(item.at("value").as_string());
  return env;
}

TEST(SimTrainerPods, TrainerEnvAddsToTheRuntimeEnvAndReplacesOnlyWhatItNames) {
  const json::value runtime = json::parse(R"({"mlPolicy": {"numNodes": 1}, "template": {"spec": {
    "replicatedJobs": [{"name": "node", "template": {"metadata": {"labels": {
      "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}}, "spec": {"template": {"spec": {
      "containers": [{"name": "node", "image": "runtime-image", "env": [
        {"name": "ENABLE_CHECKPOINT", "value": "true"}, {"name": "NVTE_FUSED_ATTN", "value": "0"}]}]
    }}}}}]}}})");
  const json::value train_job = json::parse(R"({"trainer": {"numNodes": 2, "env": [
    {"name": "NVTE_FUSED_ATTN", "value": "1"}, {"name": "EXTRA", "value": "x"}]}})");

  const auto plans = plan_replicated_jobs(train_job.as_object(), runtime.as_object());
  ASSERT_EQ(plans.size(), 1u);
  const std::map<std::string, std::string> expected{
      {"ENABLE_CHECKPOINT", "true"}, {"NVTE_FUSED_ATTN", "1"}, {"EXTRA", "x"}};
  EXPECT_EQ(env_of(plans.front()), expected);
  EXPECT_EQ(plans.front().pods, 2);
}

}  // namespace
}  // namespace nvcre::sim::trainer
