// kube-sim's simulated GPU cluster and Kubeflow Trainer over HTTP: kubectl lists the profile's
// nodes; TrainJobs created through the REST client run on the nodes they pin and end Complete,
// or Failed naming the faulty node.
#include "kubectl_support.hpp"

#include "jsonkit/yaml.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

const k8s::ResourceRef kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
const k8s::ResourceRef kRuntimes{"trainer.kubeflow.org", "v1alpha1", "trainingruntimes", true};
const k8s::ResourceRef kTrainJobs{"trainer.kubeflow.org", "v1alpha1", "trainjobs", true};
const k8s::ResourceRef kPods{"", "v1", "pods", true};

json::value torch_runtime() {
  return json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "torch-distributed"},
    "spec": {"mlPolicy": {"numNodes": 1, "torch": {"numProcPerNode": 8}},
             "template": {"spec": {"replicatedJobs": [{"name": "node",
               "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                            "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "nvcr.io/nvidia/pytorch:25.08-py3",
                              "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}}]}}}})");
}

// The shape the Job controller creates: hostname affinity and the job label in its runtimePatch.
json::value train_job(const std::string& name, const std::string& host_a,
                      const std::string& host_b) {
  auto job = json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"labels": {"app.kubernetes.io/managed-by": "nvcre"}},
    "spec": {"runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime", "name": "torch-distributed"},
             "trainer": {"numNodes": 2, "command": ["all_reduce_perf", "-b", "1G", "-e", "8G"]},
             "runtimePatches": [{"manager": "nvcre.nvidia.com/controller", "trainingRuntimeSpec": {"template": {"spec": {
               "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {
                 "metadata": {"labels": {}},
                 "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                   "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                                                "values": []}]}]}}}}}}}}]}}}}]}})");
  job.at("metadata").as_object()["name"] = name;
  job.at("metadata").at("labels").as_object()["nvcre.nvidia.com/job"] = name;
  auto& pod_template = job.at("spec")
                           .at("runtimePatches")
                           .at(0)
                           .at("trainingRuntimeSpec")
                           .at("template")
                           .at("spec")
                           .at("replicatedJobs")
                           .at(0)
                           .at("template")
                           .at("spec")
                           .at("template");
  pod_template.at("metadata").at("labels").as_object()["nvcre.nvidia.com/job"] = name;
  pod_template.at("spec")
      .at("affinity")
      .at("nodeAffinity")
      .at("requiredDuringSchedulingIgnoredDuringExecution")
      .at("nodeSelectorTerms")
      .at(0)
      .at("matchExpressions")
      .at(0)
      .as_object()["values"] = json::array{host_a, host_b};
  return job;
}

class SimTrainerOverHttp : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override {
    options.api.cluster = parse_cluster_profile("aws:h100:4");
    options.api.cluster->faulty_nodes = {parse_faulty_node("gpu-node-02")};
    options.api.trainer.enabled = true;
    options.api.trainer.step = std::chrono::milliseconds(0);
  }

  void SetUp() override {
    KubectlTest::SetUp();
    k8s::ClientConfig config;
    config.server = sim_->url();
    config.rate_limit.qps = -1;
    client_ = std::make_unique<k8s::RestClient>(config);
    for (const char* file :
         {"trainer.kubeflow.org_trainingruntimes.yaml", "trainer.kubeflow.org_trainjobs.yaml"}) {
      std::ifstream in(std::string(NVCRE_SOURCE_DIR) + "/deploy/crds/" + file);
      std::stringstream text;
      text << in.rdbuf();
      for (const auto& doc : jsonkit::parse_yaml_documents(text.str()))
        client_->create(kCrds, "", doc);
    }
    client_->create(kRuntimes, "default", torch_runtime());
  }

  void TearDown() override {
    client_.reset();
    KubectlTest::TearDown();
  }

  // Watches the TrainJob until it has a true Complete or Failed condition; returns that
  // condition (null when the server ends the watch first).
  json::value wait_until_finished(const std::string& name) {
    json::value finished;
    k8s::WatchOptions options;
    options.timeout_seconds = 60;
    client_->watch(kTrainJobs, "default", options, [&](const k8s::WatchEvent& event) {
      if (!event.object.is_object() || meta_string(event.object, "name") != name)
        return k8s::WatchControl::Continue;
      const auto* status = event.object.as_object().if_contains("status");
      const auto* conditions =
          status && status->is_object() ? status->as_object().if_contains("conditions") : nullptr;
      if (conditions && conditions->is_array())
        for (const auto& condition : conditions->as_array())
          if ((condition.at("type") == "Complete" || condition.at("type") == "Failed") &&
              condition.at("status") == "True") {
            finished = condition;
            return k8s::WatchControl::Stop;
          }
      return k8s::WatchControl::Continue;
    });
    return finished;
  }

  std::map<std::string, json::value> pods_by_node(const std::string& train_job) {
    k8s::ListOptions options;
    options.label_selector = "jobset.sigs.k8s.io/jobset-name=" + train_job;
    std::map<std::string, json::value> out;
    const auto list = client_->list(kPods, "default", options);
    for (const auto& pod : list.at("items").as_array())
      out[std::string(pod.at("spec").at("nodeName").as_string())] = pod;
    return out;
  }

  std::unique_ptr<k8s::RestClient> client_;
};

TEST_F(SimTrainerOverHttp, KubectlListsTheProfileNodes) {
  auto result = kubectl("get nodes -L nvidia.com/gpu.product,node.kubernetes.io/instance-type");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* name : {"gpu-node-00", "gpu-node-01", "gpu-node-02", "gpu-node-03"})
    EXPECT_NE(result.output.find(name), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("NVIDIA-H100-80GB-HBM3"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("p5.48xlarge"), std::string::npos) << result.output;
}

TEST_F(SimTrainerOverHttp, TrainJobWithAFaultyNodeFailsNamingIt) {
  client_->create(kTrainJobs, "default", train_job("nccl-bad", "gpu-node-01", "gpu-node-02"));
  const auto failed = wait_until_finished("nccl-bad");
  ASSERT_TRUE(failed.is_object()) << "the watch ended before the TrainJob finished";
  EXPECT_EQ(failed.at("type"), "Failed");
  EXPECT_EQ(failed.at("reason"), "FailedJobs");
  const std::string message(failed.at("message").as_string());
  EXPECT_NE(message.find("on node gpu-node-02"), std::string::npos) << message;
  EXPECT_NE(message.find("NCCL"), std::string::npos) << message;

  auto pods = pods_by_node("nccl-bad");
  ASSERT_EQ(pods.size(), 2u);
  ASSERT_TRUE(pods.contains("gpu-node-01") && pods.contains("gpu-node-02"));
  EXPECT_EQ(pods["gpu-node-01"].at("status").at("phase"), "Succeeded");
  EXPECT_EQ(pods["gpu-node-02"].at("status").at("phase"), "Failed");
  EXPECT_EQ(pods["gpu-node-02"].at("metadata").at("labels").at("nvcre.nvidia.com/job"), "nccl-bad");
  const auto& terminated =
      pods["gpu-node-02"].at("status").at("containerStatuses").at(0).at("state").at("terminated");
  EXPECT_EQ(terminated.at("exitCode"), 1);
  EXPECT_EQ(terminated.at("reason"), "Error");

  const std::string pod_name(pods["gpu-node-02"].at("metadata").at("name").as_string());
  auto log = client_->request(
      {"GET", k8s::RestClient::path_for(kPods, "default", pod_name, "log"), {}, "", ""});
  EXPECT_NE(log.body.find("NCCL WARN"), std::string::npos) << log.body;
}

TEST_F(SimTrainerOverHttp, HealthyTrainJobCompletes) {
  client_->create(kTrainJobs, "default", train_job("nccl-ok", "gpu-node-00", "gpu-node-03"));
  const auto complete = wait_until_finished("nccl-ok");
  ASSERT_TRUE(complete.is_object()) << "the watch ended before the TrainJob finished";
  EXPECT_EQ(complete.at("type"), "Complete");
  auto pods = pods_by_node("nccl-ok");
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_TRUE(pods.contains("gpu-node-00") && pods.contains("gpu-node-03"));
  for (const auto& [node, pod] : pods) EXPECT_EQ(pod.at("status").at("phase"), "Succeeded") << node;

  // Rank 0 prints the nccl-tests table the bandwidth measurement parses.
  const std::string pod_name(pods["gpu-node-00"].at("metadata").at("name").as_string());
  auto log = client_->request(
      {"GET", k8s::RestClient::path_for(kPods, "default", pod_name, "log"), {}, "", ""});
  EXPECT_NE(log.body.find("# Avg bus bandwidth"), std::string::npos) << log.body;
  EXPECT_NE(log.body.find("Using network AWS Libfabric"), std::string::npos) << log.body;
}

}  // namespace
}  // namespace nvcre::sim::testing
