// kube-sim's simulated Kubeflow Trainer, driven through the ApiServer with a zero step (every
// advance_simulation() is one stage) or an injected clock.
#include "sim/api_server.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <future>
#include <set>
#include <sstream>
#include <string>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

const std::string kNs = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/";

json::value runtime(const std::string& name, json::object pod_spec_extra = {}, bool mpi = false) {
  json::object pod_spec{
      {"containers",
       json::array{json::object{
           {"name", "node"},
           {"image", "nvcr.io/nvidia/pytorch:25.08-py3"},
           {"resources", json::object{{"limits", json::object{{"nvidia.com/gpu", "8"}}}}}}}}};
  for (auto& [key, value] : pod_spec_extra) pod_spec[key] = value;
  json::array jobs{json::object{
      {"name", "node"},
      {"template",
       json::object{
           {"metadata",
            json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step",
                                                  mpi ? "worker" : "trainer"}}}}},
           {"spec", json::object{{"template", json::object{{"spec", pod_spec}}}}}}}}};
  if (mpi)
    jobs.push_back(json::object{
        {"name", "launcher"},
        {"template",
         json::object{
             {"metadata",
              json::object{{"labels", json::object{{"trainer.kubeflow.org/trainjob-ancestor-step",
                                                    "trainer"}}}}},
             {"spec",
              json::object{{"template",
                            json::object{{"spec", json::object{{"containers",
                                                                json::array{json::object{
                                                                    {"name", "node"},
                                                                    {"image", "mpi"}}}}}}}}}}}}});
  return json::object{
      {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
      {"kind", "TrainingRuntime"},
      {"metadata", json::object{{"name", name}}},
      {"spec",
       json::object{{"mlPolicy", json::object{{"numNodes", 1}}},
                    {"template", json::object{{"spec", json::object{{"replicatedJobs", jobs}}}}}}}};
}

// What the Job controller renders: the job label and the hostname affinity in its runtimePatch.
json::value train_job(const std::string& name, const std::string& runtime_name,
                      std::vector<std::string> hosts, int num_nodes,
                      const std::vector<std::string>& patched_jobs = {"node"}) {
  json::array values;
  for (auto& host : hosts) values.emplace_back(host);
  json::array patched;
  for (const auto& job : patched_jobs) {
    json::object pod_spec;
    if (!hosts.empty())
      pod_spec["affinity"] = json::object{
          {"nodeAffinity",
           json::object{
               {"requiredDuringSchedulingIgnoredDuringExecution",
                json::object{{"nodeSelectorTerms",
                              json::array{json::object{
                                  {"matchExpressions",
                                   json::array{json::object{{"key", "kubernetes.io/hostname"},
                                                            {"operator", "In"},
                                                            {"values", values}}}}}}}}}}}};
    json::object pod_template{{"spec", pod_spec}};
    if (job == "node")
      pod_template["metadata"] =
          json::object{{"labels", json::object{{"nvcre.nvidia.com/job", name}}}};
    patched.push_back(json::object{
        {"name", job},
        {"template", json::object{{"spec", json::object{{"template", pod_template}}}}}});
  }
  json::object patch{
      {"manager", "nvcre.nvidia.com/controller"},
      {"trainingRuntimeSpec",
       json::object{
           {"template", json::object{{"spec", json::object{{"replicatedJobs", patched}}}}}}}};
  json::object spec{{"runtimeRef", json::object{{"apiGroup", "trainer.kubeflow.org"},
                                                {"kind", "TrainingRuntime"},
                                                {"name", runtime_name}}},
                    {"trainer", json::object{{"numNodes", num_nodes}}},
                    {"runtimePatches", json::array{patch}}};
  return json::object{
      {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
      {"kind", "TrainJob"},
      {"metadata",
       json::object{{"name", name}, {"labels", json::object{{"nvcre.nvidia.com/job", name}}}}},
      {"spec", spec}};
}

class SimTrainer : public ::testing::Test {
 protected:
  void SetUp() override { start(std::chrono::milliseconds(0)); }

  void start(std::chrono::milliseconds step, std::chrono::milliseconds run = {}) {
    ApiServerOptions options;
    options.cluster = parse_cluster_profile("aws:h100:4");
    options.cluster->faulty_nodes = {{"gpu-node-02", std::string(kDefaultNodeFault)}};
    options.trainer.enabled = true;
    options.trainer.step = step;
    options.trainer.run = run;
    options.trainer.clock = [this] {
      if (pass_hook_) pass_hook_();
      return now_;
    };
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
                    const std::string& body = {},
                    const std::string& content_type = "application/json",
                    std::map<std::string, std::string> query = {}) {
    return std::get<HttpResponse>(api_->handle(
        HttpRequest{method, path, std::move(query), content_type, "application/json", body}));
  }
  json::value get(const std::string& path, std::map<std::string, std::string> query = {}) {
    auto response = call("GET", path, {}, "application/json", std::move(query));
    EXPECT_EQ(response.status, 200) << path << ": " << response.body;
    return json::parse(response.body);
  }
  void post(const std::string& resource, const json::value& object) {
    auto response = call("POST", kNs + resource, json::serialize(object));
    ASSERT_EQ(response.status, 201) << response.body;
  }
  json::array pods(const std::string& train_job) {
    return get("/api/v1/namespaces/default/pods",
               {{"labelSelector", "jobset.sigs.k8s.io/jobset-name=" + train_job}})
        .at("items")
        .as_array();
  }
  json::value train_job_status(const std::string& name) {
    return get(kNs + "trainjobs/" + name).at("status");
  }
  static std::string condition(const json::value& status, const std::string& type,
                               const char* field = "status") {
    if (!status.is_object() || !status.as_object().contains("conditions")) return "";
    for (const auto& c : status.at("conditions").as_array())
      if (c.at("type") == json::value(type)) return std::string(c.at(field).as_string());
    return "";
  }
  static std::string phase(const json::value& pod) {
    return std::string(pod.at("status").at("phase").as_string());
  }
  static std::string node(const json::value& pod) {
    return std::string(pod.at("spec").at("nodeName").as_string());
  }

  std::chrono::steady_clock::time_point now_{};
  std::function<void()> pass_hook_;  // runs inside a Trainer pass (it reads the clock there)
  std::unique_ptr<ApiServer> api_;
};

TEST_F(SimTrainer, HealthyTrainJobRunsPinnedPodsToComplete) {
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("ok", "torch", {"gpu-node-00", "gpu-node-01"}, 2));

  EXPECT_EQ(api_->advance_simulation(), 1u);  // pods created and bound
  auto created = pods("ok");
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(node(created[0]), "gpu-node-00");
  EXPECT_EQ(node(created[1]), "gpu-node-01");
  EXPECT_EQ(phase(created[0]), "Pending");
  const auto& labels = created[0].at("metadata").at("labels");
  EXPECT_EQ(labels.at("jobset.sigs.k8s.io/replicatedjob-name"), "node");
  EXPECT_EQ(labels.at("batch.kubernetes.io/job-completion-index"), "0");
  EXPECT_EQ(labels.at("nvcre.nvidia.com/job"), "ok");  // from the controller's runtimePatch
  const auto& owner = created[0].at("metadata").at("ownerReferences").at(0);
  EXPECT_EQ(owner.at("kind"), "TrainJob");
  EXPECT_EQ(owner.at("controller"), true);
  EXPECT_TRUE(created[0].at("metadata").at("name").as_string().starts_with("ok-node-0-0-"));

  EXPECT_EQ(api_->advance_simulation(), 1u);
  for (const auto& pod : pods("ok")) EXPECT_EQ(phase(pod), "Running");
  EXPECT_EQ(condition(train_job_status("ok"), "Complete"), "");

  EXPECT_EQ(api_->advance_simulation(), 1u);
  for (const auto& pod : pods("ok")) {
    EXPECT_EQ(phase(pod), "Succeeded");
    EXPECT_EQ(
        pod.at("status").at("containerStatuses").at(0).at("state").at("terminated").at("exitCode"),
        0);
  }
  const auto status = train_job_status("ok");
  EXPECT_EQ(condition(status, "Complete"), "True");
  EXPECT_EQ(condition(status, "Complete", "reason"), "AllJobsCompleted");
  EXPECT_EQ(condition(status, "Failed"), "");
  EXPECT_EQ(status.at("jobsStatus").at(0).at("succeeded"), 2);
  EXPECT_EQ(api_->advance_simulation(), 0u);  // finished: left alone
}

TEST_F(SimTrainer, PodOnFaultyNodeFailsWithExitCodeOneAndTheTrainJobNamesIt) {
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("bad", "torch", {"gpu-node-01", "gpu-node-02"}, 2));
  for (int i = 0; i < 3; ++i) api_->advance_simulation();

  auto finished = pods("bad");
  ASSERT_EQ(finished.size(), 2u);
  EXPECT_EQ(phase(finished[0]), "Succeeded");
  EXPECT_EQ(node(finished[1]), "gpu-node-02");
  EXPECT_EQ(phase(finished[1]), "Failed");
  const auto& terminated =
      finished[1].at("status").at("containerStatuses").at(0).at("state").at("terminated");
  EXPECT_EQ(terminated.at("exitCode"), 1);
  EXPECT_EQ(terminated.at("reason"), "Error");
  EXPECT_EQ(terminated.at("message").as_string(), kDefaultNodeFault);

  const auto status = train_job_status("bad");
  EXPECT_EQ(condition(status, "Failed"), "True");
  EXPECT_EQ(condition(status, "Failed", "reason"), "FailedJobs");
  const std::string message = condition(status, "Failed", "message");
  EXPECT_NE(message.find("gpu-node-02"), std::string::npos) << message;
  EXPECT_NE(message.find(std::string(finished[1].at("metadata").at("name").as_string())),
            std::string::npos)
      << message;

  // pods/log carries the failure line.
  const std::string pod_name(finished[1].at("metadata").at("name").as_string());
  auto log = call("GET", "/api/v1/namespaces/default/pods/" + pod_name + "/log");
  EXPECT_EQ(log.status, 200);
  EXPECT_NE(log.body.find(kDefaultNodeFault), std::string::npos) << log.body;
  EXPECT_NE(log.body.find("started on node gpu-node-02"), std::string::npos) << log.body;
  // The log lives beside the pod, as a kubelet keeps it: the pod object (and every watch event of
  // it) carries none.
  EXPECT_EQ(json::serialize(finished[1]).find("started on node"), std::string::npos) << finished[1];
}

TEST_F(SimTrainer, APodsLogGoesWithThePod) {
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("ok", "torch", {"gpu-node-00"}, 1));
  for (int i = 0; i < 3; ++i) api_->advance_simulation();
  const std::string name(pods("ok").at(0).at("metadata").at("name").as_string());
  const std::string path = "/api/v1/namespaces/default/pods/" + name;
  EXPECT_NE(call("GET", path + "/log").body.find("started on node gpu-node-00"), std::string::npos);

  ASSERT_EQ(call("DELETE", path).status, 200);  // no Trainer pass in between to forget the log
  json::value again = json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name}}},
      {"spec",
       json::object{{"containers", json::array{json::object{{"name", "c"}, {"image", "i"}}}}}}};
  ASSERT_EQ(call("POST", "/api/v1/namespaces/default/pods", json::serialize(again)).status, 201);
  auto log = call("GET", path + "/log");
  EXPECT_EQ(log.status, 200);
  EXPECT_EQ(log.body, "") << "a new pod of the same name showed its predecessor's log";
}

TEST_F(SimTrainer, MpiLauncherFailsWithItsWorkersAndTheWorkerIsNamed) {
  post("trainingruntimes", runtime("mpi", {}, true));
  post("trainjobs",
       train_job("mpi", "mpi", {"gpu-node-02", "gpu-node-03"}, 2, {"node", "launcher"}));
  for (int i = 0; i < 3; ++i) api_->advance_simulation();
  int launchers = 0;
  for (const auto& pod : pods("mpi")) {
    if (pod.at("metadata").at("labels").at("jobset.sigs.k8s.io/replicatedjob-name") != "launcher")
      continue;
    ++launchers;
    EXPECT_EQ(phase(pod), "Failed");
    EXPECT_FALSE(pod.at("metadata").at("labels").as_object().contains("nvcre.nvidia.com/job"));
  }
  EXPECT_EQ(launchers, 1);
  const std::string message = condition(train_job_status("mpi"), "Failed", "message");
  EXPECT_NE(message.find("mpi-node-0-0-"), std::string::npos) << message;
  EXPECT_NE(message.find("on node gpu-node-02"), std::string::npos) << message;
}

TEST_F(SimTrainer, NodeSelectorInTheRuntimePinsPods) {
  post("trainingruntimes",
       runtime("pinned",
               {{"nodeSelector", json::object{{"kubernetes.io/hostname", "gpu-node-03"}}}}));
  post("trainjobs", train_job("sel", "pinned", {}, 1));
  api_->advance_simulation();
  auto created = pods("sel");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(node(created[0]), "gpu-node-03");
}

TEST_F(SimTrainer, PodsThatDoNotFitStayPendingUnschedulable) {
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("big", "torch", {"gpu-node-00"}, 2));
  for (int i = 0; i < 4; ++i) api_->advance_simulation();
  auto created = pods("big");
  ASSERT_EQ(created.size(), 2u);
  EXPECT_EQ(phase(created[0]), "Pending");
  EXPECT_FALSE(created[1].at("spec").as_object().contains("nodeName"));
  const auto& scheduled = created[1].at("status").at("conditions").at(0);
  EXPECT_EQ(scheduled.at("status"), "False");
  EXPECT_EQ(scheduled.at("reason"), "Unschedulable");
  // The nodes the affinity does not name are counted without being looked at (NodePicker).
  EXPECT_EQ(scheduled.at("message"),
            "0/4 nodes are available: 1 node(s) already run a pod of this replicated job, 3 "
            "node(s) didn't match Pod's node affinity/selector.");
  EXPECT_EQ(condition(train_job_status("big"), "Complete"), "");
}

// The Trainer keeps its copy of the Nodes between passes; a Node change must reach the next one.
TEST_F(SimTrainer, ANodeChangeBetweenPassesReachesTheNextPass) {
  auto taint = [&](const char* taints) {
    auto response =
        call("PATCH", "/api/v1/nodes/gpu-node-00",
             std::string(R"({"spec":{"taints":)") + taints + "}}", "application/merge-patch+json");
    ASSERT_EQ(response.status, 200) << response.body;
  };
  taint(R"([{"key":"example.com/maintenance","value":"true","effect":"NoSchedule"}])");
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("pinned", "torch", {"gpu-node-00"}, 1));
  for (int i = 0; i < 2; ++i) api_->advance_simulation();
  auto pending = pods("pinned");
  ASSERT_EQ(pending.size(), 1u);
  ASSERT_FALSE(pending[0].at("spec").as_object().contains("nodeName"));
  EXPECT_NE(pending[0]
                .at("status")
                .at("conditions")
                .at(0)
                .at("message")
                .as_string()
                .find("untolerated taint"),
            std::string::npos)
      << pending[0];

  taint("null");  // the maintenance is over
  api_->advance_simulation();
  auto bound = pods("pinned");
  ASSERT_EQ(bound.size(), 1u);
  ASSERT_TRUE(bound[0].at("spec").as_object().contains("nodeName")) << bound[0];
  EXPECT_EQ(node(bound[0]), "gpu-node-00");
}

TEST_F(SimTrainer, SuspendedTrainJobStaysPendingUntilResumed) {
  post("trainingruntimes", runtime("torch"));
  auto job = train_job("sus", "torch", {"gpu-node-00"}, 1);
  job.at("spec").as_object()["suspend"] = true;
  post("trainjobs", job);
  api_->advance_simulation();
  api_->advance_simulation();
  EXPECT_TRUE(pods("sus").empty());
  EXPECT_EQ(condition(train_job_status("sus"), "Suspended"), "True");

  auto patch = call("PATCH", kNs + "trainjobs/sus", R"({"spec":{"suspend":false}})",
                    "application/merge-patch+json");
  ASSERT_EQ(patch.status, 200) << patch.body;
  api_->advance_simulation();
  EXPECT_EQ(pods("sus").size(), 1u);
  EXPECT_EQ(condition(train_job_status("sus"), "Suspended"), "False");
  EXPECT_EQ(condition(train_job_status("sus"), "Suspended", "reason"), "Resumed");
}

TEST_F(SimTrainer, NothingHappensUntilTheRuntimeExists) {
  post("trainjobs", train_job("early", "late", {"gpu-node-00"}, 1));
  EXPECT_EQ(api_->advance_simulation(), 0u);
  EXPECT_TRUE(pods("early").empty());
  post("trainingruntimes", runtime("late"));
  EXPECT_EQ(api_->advance_simulation(), 1u);
  EXPECT_EQ(pods("early").size(), 1u);
}

TEST_F(SimTrainer, DeletingTheTrainJobDeletesItsPods) {
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("gone", "torch", {"gpu-node-00", "gpu-node-01"}, 2));
  api_->advance_simulation();
  api_->advance_simulation();
  ASSERT_EQ(pods("gone").size(), 2u);
  auto deleted = call("DELETE", kNs + "trainjobs/gone");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_TRUE(pods("gone").empty());
  EXPECT_EQ(api_->advance_simulation(), 0u);
}

TEST_F(SimTrainer, StagesWaitForTheStepOnTheInjectedClock) {
  start(std::chrono::milliseconds(1000));
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("slow", "torch", {"gpu-node-00"}, 1));
  api_->advance_simulation();
  EXPECT_EQ(api_->advance_simulation(), 0u);  // same instant: still Pending
  EXPECT_EQ(phase(pods("slow")[0]), "Pending");
  now_ += std::chrono::milliseconds(999);
  EXPECT_EQ(api_->advance_simulation(), 0u);
  now_ += std::chrono::milliseconds(1);
  EXPECT_EQ(api_->advance_simulation(), 1u);
  EXPECT_EQ(phase(pods("slow")[0]), "Running");
}

// A pass that finds every planned pod skips planning; one that misses a pod (deleted by a client
// while the TrainJob itself did not change) plans again and makes it.
TEST_F(SimTrainer, APodDeletedWhileItsTrainJobWaitsIsMadeAgain) {
  start(std::chrono::milliseconds(1000));
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("waits", "torch", {"gpu-node-00", "gpu-node-01"}, 2));
  EXPECT_EQ(api_->advance_simulation(), 1u);  // pods made
  EXPECT_EQ(api_->advance_simulation(), 0u);  // same instant: all there, nothing to do
  EXPECT_EQ(api_->advance_simulation(), 0u);
  auto before = pods("waits");
  ASSERT_EQ(before.size(), 2u);
  const std::string gone(before[1].at("metadata").at("name").as_string());
  auto deleted = call("DELETE", "/api/v1/namespaces/default/pods/" + gone);
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  ASSERT_EQ(pods("waits").size(), 1u);

  EXPECT_EQ(api_->advance_simulation(), 1u);
  auto after = pods("waits");
  ASSERT_EQ(after.size(), 2u);
  std::set<std::string> names;
  for (const auto& pod : after)
    names.insert(std::string(pod.at("metadata").at("name").as_string()));
  EXPECT_TRUE(names.contains(gone));
  EXPECT_EQ(api_->advance_simulation(), 0u);
}

// `kubectl annotate node ... sim.nvcre.nvidia.com/condition-on-run=GPUHealthy` (or
// --node-condition): two steps into a run there the node reports GPUHealthy=False; the run goes on,
// other nodes keep their conditions.
TEST_F(SimTrainer, ANodeConditionTurnsFalseAFewStepsIntoAJobThere) {
  start(std::chrono::milliseconds(1000), std::chrono::milliseconds(10000));
  auto annotated = call("PATCH", "/api/v1/nodes/gpu-node-01",
                        R"({"metadata": {"annotations": {"sim.nvcre.nvidia.com/condition-on-run":
                            "GPUHealthy,NetworkReady"}}})",
                        "application/merge-patch+json");
  ASSERT_EQ(annotated.status, 200) << annotated.body;
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("watched", "torch", {"gpu-node-00", "gpu-node-01"}, 2));
  api_->advance_simulation();  // pods created
  now_ += std::chrono::milliseconds(1000);
  api_->advance_simulation();  // Running
  auto node_status = [&](const std::string& name) {
    return get("/api/v1/nodes/" + name).at("status");
  };
  now_ += std::chrono::milliseconds(1999);
  api_->advance_simulation();
  EXPECT_EQ(condition(node_status("gpu-node-01"), "GPUHealthy"), "");
  now_ += std::chrono::milliseconds(1);
  EXPECT_EQ(api_->advance_simulation(), 1u);
  const auto status = node_status("gpu-node-01");
  EXPECT_EQ(condition(status, "GPUHealthy"), "False");
  EXPECT_EQ(condition(status, "GPUHealthy", "reason"), "SimulatedFault");
  EXPECT_EQ(condition(status, "NetworkReady"), "False");
  EXPECT_EQ(condition(status, "Ready"), "True");
  EXPECT_EQ(condition(node_status("gpu-node-00"), "GPUHealthy"), "");
  for (const auto& pod : pods("watched")) EXPECT_EQ(phase(pod), "Running");
  now_ += std::chrono::milliseconds(1000);
  EXPECT_EQ(api_->advance_simulation(), 0u) << "set once: nothing more to write";
}

// The Trainer is a client of the API server: a request made while a pass is in the middle of its
// work is answered then, not after the pass (holding the request lock for the whole pass kept
// every client waiting up to its length on each tick).
TEST_F(SimTrainer, RequestsAreServedWhileAPassIsInProgress) {
  post("trainingruntimes", runtime("torch"));
  post("trainjobs", train_job("ok", "torch", {"gpu-node-00", "gpu-node-01"}, 2));
  std::promise<void> entered, release;
  auto released = release.get_future().share();
  pass_hook_ = [&, done = false]() mutable {
    if (std::exchange(done, true)) return;
    entered.set_value();
    released.wait();
  };
  auto pass = std::async(std::launch::async, [&] { return api_->advance_simulation(); });
  entered.get_future().wait();
  auto read =
      std::async(std::launch::async, [&] { return call("GET", kNs + "trainjobs/ok").status; });
  const bool answered = read.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  release.set_value();
  EXPECT_TRUE(answered) << "a GET waited for the Trainer pass to end";
  EXPECT_EQ(read.get(), 200);
  EXPECT_EQ(pass.get(), 1u);  // the pass went on to create and bind the pods
  EXPECT_EQ(pods("ok").size(), 2u);
}

TEST_F(SimTrainer, TrainerIsOffByDefault) {
  ApiServer plain;
  EXPECT_EQ(plain.advance_simulation(), 0u);
}

}  // namespace
}  // namespace nvcre::sim
