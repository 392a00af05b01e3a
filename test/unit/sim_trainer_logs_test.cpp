// The logs kube-sim's Trainer writes over a run, read through pods/log as a client reads them:
// lines appear as the run goes (each with the time it was written), a slow node caps the
// bandwidth a group reports, a stalled node hangs its group, and PUT /sim/logs replays a capture.
#include "sim/api_server.hpp"

#include "jsonkit/yaml.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <fstream>
#include <sstream>

namespace nvcre::sim {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

const RE2 kBandwidthResult(
    R"(^\s*(?P<size>\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s+[\d.]+\s+(?P<algBW>[\d.]+)\s+(?P<busBW>[\d.]+))");
const RE2 kIteration(R"(\]\s+iteration\s+(\d+)/)");

// A one-replicated-job runtime whose pods run `command` on the named nodes.
json::value runtime(const std::string& name, const std::vector<std::string>& hosts,
                    const std::vector<std::string>& command) {
  json::value object = json::parse(R"({
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": ""},
    "spec": {"mlPolicy": {"numNodes": 1}, "template": {"spec": {"replicatedJobs": [{
      "name": "node",
      "template": {
        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        "spec": {"template": {"spec": {
          "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
              {"key": "kubernetes.io/hostname", "operator": "In", "values": []}]}]}}},
          "containers": [{"name": "node", "image": "nccl-tests", "command": [],
                          "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}}}}}]}}}})");
  object.at("metadata").as_object()["name"] = name;
  object.at("spec").at("mlPolicy").as_object()["numNodes"] = hosts.size();
  auto& pod_spec = object.at("spec")
                       .at("template")
                       .at("spec")
                       .at("replicatedJobs")
                       .at(0)
                       .at("template")
                       .at("spec")
                       .at("template")
                       .at("spec");
  auto& values = pod_spec.at("affinity")
                     .at("nodeAffinity")
                     .at("requiredDuringSchedulingIgnoredDuringExecution")
                     .at("nodeSelectorTerms")
                     .at(0)
                     .at("matchExpressions")
                     .at(0)
                     .at("values")
                     .as_array();
  for (const auto& host : hosts) values.emplace_back(host);
  auto& words = pod_spec.at("containers").at(0).at("command").as_array();
  for (const auto& word : command) words.emplace_back(word);
  return object;
}

class SimTrainerLogs : public ::testing::Test {
 protected:
  void SetUp() override {
    ApiServerOptions options;
    options.cluster = parse_cluster_profile("aws:h100:4");
    options.trainer.enabled = true;
    options.trainer.step = seconds(10);
    options.trainer.clock = [this] { return steady_; };
    options.store.clock = [this] { return wall_; };
    api_ = std::make_unique<ApiServer>(options);
    for (const char* file :
         {"trainer.kubeflow.org_trainingruntimes.yaml", "trainer.kubeflow.org_trainjobs.yaml"}) {
      std::ifstream in(std::string(NVCRE_SOURCE_DIR) + "/deploy/crds/" + file);
      std::stringstream text;
      text << in.rdbuf();
      for (const auto& doc : jsonkit::parse_yaml_documents(text.str())) api_->add_crd(doc);
    }
  }

  HttpResponse call(const std::string& method, const std::string& path,
                    std::map<std::string, std::string> query = {}, const std::string& body = {}) {
    return std::get<HttpResponse>(
        api_->handle(HttpRequest{method, path, std::move(query), "application/json", "*/*", body}));
  }
  void run(const std::string& name, const std::vector<std::string>& hosts,
           const std::vector<std::string>& command) {
    ASSERT_EQ(call("POST", kTrainer + "trainingruntimes", {},
                   json::serialize(runtime(name, hosts, command)))
                  .status,
              201);
    json::value job = json::parse(R"({"apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob", "metadata": {"name": ""}, "spec": {"runtimeRef":
        {"apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime", "name": ""}}})");
    job.at("metadata").as_object()["name"] = name;
    job.at("spec").at("runtimeRef").as_object()["name"] = name;
    ASSERT_EQ(call("POST", kTrainer + "trainjobs", {}, json::serialize(job)).status, 201);
  }
  // Moves both clocks, then runs a Trainer pass.
  void pass(seconds elapsed) {
    steady_ += elapsed;
    wall_ += elapsed;
    api_->advance_simulation();
  }
  json::value pod(const std::string& train_job, int index = 0) {
    auto response = call("GET", "/api/v1/namespaces/default/pods",
                         {{"labelSelector", "jobset.sigs.k8s.io/jobset-name=" + train_job}});
    return json::parse(response.body).at("items").at(index);
  }
  std::string log(const std::string& pod_name, std::map<std::string, std::string> query = {}) {
    auto response = call("GET", "/api/v1/namespaces/default/pods/" + pod_name + "/log", query);
    EXPECT_EQ(response.status, 200) << response.body;
    return response.body;
  }
  static std::string name_of(const json::value& object) {
    return std::string(object.at("metadata").at("name").as_string());
  }
  static std::string phase(const json::value& pod) {
    return std::string(pod.at("status").at("phase").as_string());
  }
  static std::vector<double> busbw_of(const std::string& text) {
    std::vector<double> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      long long size = 0;
      double algbw = 0, busbw = 0;
      if (RE2::PartialMatch(line, kBandwidthResult, &size, &algbw, &busbw)) out.push_back(busbw);
    }
    return out;
  }
  static int count(const std::string& text, const RE2& pattern) {
    int n = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) n += RE2::PartialMatch(line, pattern);
    return n;
  }
  void annotate(const std::string& node, const std::string& key, const std::string& value) {
    json::value patch =
        json::object{{"metadata", json::object{{"annotations", json::object{{key, value}}}}}};
    auto response = std::get<HttpResponse>(api_->handle(HttpRequest{"PATCH",
                                                                    "/api/v1/nodes/" + node,
                                                                    {},
                                                                    "application/merge-patch+json",
                                                                    "application/json",
                                                                    json::serialize(patch)}));
    ASSERT_EQ(response.status, 200) << response.body;
  }

  const std::string kTrainer = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/";
  std::chrono::steady_clock::time_point steady_{};
  std::chrono::system_clock::time_point wall_ = *k8s::parse_rfc3339("2026-12-03T12:00:00Z");
  std::unique_ptr<ApiServer> api_;
};

TEST_F(SimTrainerLogs, NcclRowsAppearAsTheRunGoesEachWithItsTime) {
  run("sweep", {"gpu-node-00", "gpu-node-01"},
      {"mpirun", "all_reduce_perf", "-b", "1M", "-e", "1G", "-f", "2"});
  pass(seconds(0));   // pods created
  pass(seconds(10));  // Running at 12:00:10: start-up lines only
  const std::string name = name_of(pod("sweep"));
  EXPECT_EQ(phase(pod("sweep")), "Running");
  EXPECT_TRUE(busbw_of(log(name)).empty()) << log(name);
  EXPECT_NE(log(name).find("# nccl-tests version"), std::string::npos);

  pass(seconds(5));  // halfway, 12:00:15: about half the rows
  const auto half = busbw_of(log(name));
  EXPECT_GT(half.size(), 3u);
  EXPECT_LT(half.size(), 11u);
  EXPECT_EQ(phase(pod("sweep")), "Running");

  pass(seconds(5));  // 12:00:20: done, the rest and the summary
  EXPECT_EQ(phase(pod("sweep")), "Succeeded");
  const std::string full = log(name);
  EXPECT_EQ(busbw_of(full).size(), 11u);  // 1M .. 1G
  EXPECT_NE(full.find("# Avg bus bandwidth    : "), std::string::npos);

  // Each line carries the time it was written.
  const std::string stamped = log(name, {{"timestamps", "true"}});
  EXPECT_TRUE(stamped.starts_with("2026-12-03T12:00:10.000000000Z kube-sim: pod ")) << stamped;
  EXPECT_EQ(busbw_of(log(name, {{"sinceTime", "2026-12-03T12:00:15Z"}})).size(), 11u);
  EXPECT_EQ(busbw_of(log(name, {{"sinceTime", "2026-12-03T12:00:16Z"}})).size(), 11u - half.size());
  EXPECT_EQ(log(name, {{"sinceSeconds", "1"}}).find("kube-sim: pod"), std::string::npos)
      << "start-up lines are 10 s old";
}

TEST_F(SimTrainerLogs, ASlowNodeCapsTheGroupsBandwidth) {
  annotate("gpu-node-01", "sim.nvcre.nvidia.com/bus-bandwidth-gbps", "42");
  run("slow", {"gpu-node-00", "gpu-node-01"},
      {"all_reduce_perf", "-b", "8", "-e", "8G", "-f", "2"});
  run("fast", {"gpu-node-02", "gpu-node-03"},
      {"all_reduce_perf", "-b", "8", "-e", "8G", "-f", "2"});
  for (int i = 0; i < 4; ++i) pass(seconds(10));
  const auto slow = busbw_of(log(name_of(pod("slow"))));
  ASSERT_EQ(slow.size(), 31u);
  for (const double busbw : slow) EXPECT_LE(busbw, 42.0);
  EXPECT_GT(slow.back(), 41.0);
  const auto fast = busbw_of(log(name_of(pod("fast"))));
  ASSERT_EQ(fast.size(), 31u);
  EXPECT_GT(fast.back(), 300.0) << "a group without the slow node is not capped";
}

TEST_F(SimTrainerLogs, AStalledNodeHangsItsGroupAfterAFewSteps) {
  annotate("gpu-node-03", "sim.nvcre.nvidia.com/stall", "true");
  run("hung", {"gpu-node-02", "gpu-node-03"},
      {"torchrun", "pretrain_gpt.py --train-iters 100 --log-interval 10"});
  for (int i = 0; i < 10; ++i) pass(seconds(10));
  EXPECT_EQ(phase(pod("hung", 0)), "Running");
  EXPECT_EQ(phase(pod("hung", 1)), "Running");
  const std::string text = log(name_of(pod("hung")));
  EXPECT_EQ(count(text, kIteration), 3) << text;
  EXPECT_EQ(text.find("[after training is done]"), std::string::npos);
  auto train_job = json::parse(call("GET", kTrainer + "trainjobs/hung").body);
  EXPECT_FALSE(train_job.at("status").as_object().contains("conditions")) << train_job;
}

TEST_F(SimTrainerLogs, AReplayedCaptureReplacesThePodsLog) {
  run("replay", {"gpu-node-00"}, {"all_reduce_perf", "-b", "1M", "-e", "1M"});
  pass(seconds(0));
  pass(seconds(10));
  const std::string name = name_of(pod("replay"));
  auto put = call("PUT", "/sim/logs/default/" + name, {},
                  "2026-08-06T14:10:27.142404042-07:00            8             2     float     "
                  "sum      -1   387.62    0.00    0.00       0   382.48    0.00    0.00       0\n"
                  "a line without a time\n");
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(json::parse(put.body).at("lines"), 2);
  pass(seconds(10));  // the run ends; its rows do not go into the replayed log
  EXPECT_EQ(log(name, {{"timestamps", "true"}}),
            "2026-08-06T21:10:27.142404042Z            8             2     float     sum      -1  "
            " 387.62    0.00    0.00       0   382.48    0.00    0.00       0\n"
            "2026-12-03T12:00:10.000000000Z a line without a time\n");
  EXPECT_EQ(call("PUT", "/sim/logs/default/nobody", {}, "x").status, 404);
  EXPECT_EQ(call("PUT", "/sim/logs/default/" + name, {{"container", "ghost"}}, "x").status, 400);
  EXPECT_EQ(call("GET", "/sim/logs/default/" + name).status, 405);
}

TEST_F(SimTrainerLogs, LogRequestsFailAsTheApiServersDo) {
  run("errors", {"gpu-node-00"}, {"all_reduce_perf"});
  pass(seconds(0));
  const std::string path = "/api/v1/namespaces/default/pods/" + name_of(pod("errors")) + "/log";
  EXPECT_EQ(call("GET", path, {{"sinceTime", "noon"}}).status, 400);
  EXPECT_EQ(call("GET", path, {{"tailLines", "-3"}}).status, 422);
  EXPECT_EQ(call("GET", path, {{"container", "ghost"}}).status, 400);
  auto previous = call("GET", path, {{"previous", "true"}});
  EXPECT_EQ(previous.status, 400);
  EXPECT_NE(previous.body.find("previous terminated container \\\"node\\\""), std::string::npos)
      << previous.body;
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/nobody/log").status, 404);
}

}  // namespace
}  // namespace nvcre::sim
