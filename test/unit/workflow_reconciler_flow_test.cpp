// workflow/workflow_reconciler.hpp end to end against a small in-memory cluster that carries out
// plans the way the actor shell does (LiveGet -> re-plan, stop at the first failed action, re-run
// with the outcome, AlreadyExists with the live holder, resourceVersion preconditions). The Job
// controller is played by the test: it flips Job conditions. The golden suite pins single passes;
// this pins that the passes chain into a whole run and a clean deletion.
#include "k8s/kubeconfig.hpp"
#include "jsonkit/merge_patch.hpp"
#include "k8s/object_cache.hpp"
#include "jsonkit/named_merge.hpp"
#include "workflow/node_results.hpp"
#include "workflow/workflow_reconciler.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <set>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
namespace wf = nvcre::workflow;

const std::set<std::string> kCachedKinds = {"Workflow", "Job",       "Node",
                                            "Pod",      "ConfigMap", "TrainJob"};
constexpr const char* kUid = "0f0e0d0c-aaaa-bbbb-cccc-000000000001";

class FakeCluster {
 public:
  k8s::ObjectCache store;  // everything
  int next_uid = 1;
  int next_rv = 100;
  std::vector<std::string> log;  // "verb kind/name" of every executed write

  void put(json::value object) {
    auto& meta = object.as_object()["metadata"].as_object();
    if (!meta.contains("uid")) meta["uid"] = "uid-" + std::to_string(next_uid++);
    meta["resourceVersion"] = std::to_string(next_rv++);
    store.upsert(std::move(object));
  }

  // The informer view: only the kinds the manager caches.
  k8s::ObjectCache cache() const {
    k8s::ObjectCache view;
    for (const auto& kind : kCachedKinds) {
      for (const auto* o :
           store.list(kind == "Workflow" || kind == "Job" ? "nvcre.nvidia.com/v1alpha1"
                      : kind == "TrainJob"                ? "trainer.kubeflow.org/v1alpha1"
                                                          : "v1",
                      kind, "")) {
        view.upsert(*o);
      }
    }
    return view;
  }

  // Executes one action; returns the failure, if any.
  std::optional<k8s::ActionOutcome> execute(const k8s::Action& action) {
    const json::value* current = store.get(action.target);
    auto fail = [&](int code, std::string reason) {
      k8s::ActionOutcome outcome{action, code, std::move(reason), "", std::nullopt};
      if (outcome.reason == "AlreadyExists" && current != nullptr) outcome.live_holder = *current;
      return outcome;
    };
    auto rv_matches = [&](const json::value& body) {
      const auto* meta = body.as_object().if_contains("metadata");
      const auto* rv = meta == nullptr ? nullptr : meta->as_object().if_contains("resourceVersion");
      return rv == nullptr || *rv == current->at("metadata").at("resourceVersion");
    };
    log.push_back(std::string(k8s::to_string(action.verb)) + " " + action.target.kind + "/" +
                  action.target.name);
    switch (action.verb) {
      case k8s::ActionVerb::Create:
        if (current != nullptr) return fail(409, "AlreadyExists");
        put(action.body);
        return std::nullopt;
      case k8s::ActionVerb::Delete:
        if (current == nullptr)
          return action.ignore_not_found ? std::nullopt : std::optional(fail(404, "NotFound"));
        if (action.precondition_uid && k8s::uid_of(*current) != *action.precondition_uid) {
          return action.ignore_conflict ? std::nullopt : std::optional(fail(409, "Conflict"));
        }
        store.erase(action.target);
        return std::nullopt;
      case k8s::ActionVerb::MergePatch:
      case k8s::ActionVerb::MergePatchStatus: {
        if (current == nullptr) return fail(404, "NotFound");
        if (!rv_matches(action.body)) return fail(409, "Conflict");
        json::value patch = action.body;
        patch.as_object()["metadata"].as_object().erase("resourceVersion");
        if (action.verb == k8s::ActionVerb::MergePatchStatus)
          patch = json::object{{"status", patch.at("status")}};
        put(nvcre::jsonkit::merge_patch(*current, patch));
        return std::nullopt;
      }
      case k8s::ActionVerb::Update:
      case k8s::ActionVerb::UpdateStatus:
        if (current == nullptr) return fail(404, "NotFound");
        if (!rv_matches(action.body)) return fail(409, "Conflict");
        put(action.body);
        return std::nullopt;
      case k8s::ActionVerb::LiveGet:
        return std::nullopt;
    }
    return std::nullopt;
  }
};

class WorkflowReconcilerFlow : public ::testing::Test {
 protected:
  FakeCluster cluster;
  k8s::Clock::time_point now = *k8s::parse_rfc3339("2026-03-01T12:00:00Z");
  const k8s::ObjectRef self{"nvcre.nvidia.com/v1alpha1", "Workflow", "gpu", "demo"};

  void SetUp() override {
    for (const char* name : {"node-a", "node-b", "node-c", "node-d"}) {
      cluster.put(json::parse(
          std::string(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")") + name +
          R"(","labels":{"nvidia.com/gpu.present":"true","nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"}},"spec":{"providerID":"aws:///x"}})"));
    }
    cluster.put(
        json::parse(std::string(R"({"apiVersion":"nvcre.nvidia.com/v1alpha1","kind":"Workflow",
      "metadata":{"name":"demo","namespace":"gpu","uid":")") +
                    kUid + R"(","generation":1},
      "spec":{"jobTemplate":{"spec":{"workload":{"trainJob":{"runtimeRef":{"kind":"TrainingRuntime","name":"demo-runtime"},"trainer":{"numNodes":2}}}}},
              "orchestration":{"execution":{"retryFailedGroups":1}},
              "dependencies":[{"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainingRuntime","metadata":{"name":"demo-runtime"},"spec":{}},
                              {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"demo-settings"},"data":{"a":"b"}}]}})"));
  }

  // One pass as the shell runs it; returns the plan that ended it.
  k8s::ReconcilePlan pass() {
    k8s::LiveReads live;
    std::optional<k8s::ActionOutcome> outcome;
    for (int attempt = 0; attempt < 20; ++attempt) {
      const k8s::ObjectCache cache = cluster.cache();
      const json::value* object = cache.get(self);
      const std::map<std::string, nvcre::reconcile::PodLogAnswer> no_pod_logs;
      const nvcre::reconcile::BuildAnswers no_builds;
      const json::value no_memo;
      const auto plan = wf::reconcile_workflow(
                            {object, cache, live, outcome, now, no_pod_logs, no_builds, no_memo})
                            .plan;
      bool reads = false;
      for (const auto& a : plan.actions) {
        if (a.verb != k8s::ActionVerb::LiveGet) continue;
        reads = true;
        const json::value* o = cluster.store.get(a.target);
        live[a.target] = o == nullptr ? json::value(nullptr) : *o;
      }
      if (reads) continue;
      outcome.reset();
      for (const auto& a : plan.actions) {
        if ((outcome = cluster.execute(a))) break;
      }
      if (!outcome || outcome->reason == "Conflict") {
        now += plan.requeue_after.value_or(std::chrono::milliseconds(0));
        return plan;
      }
    }
    ADD_FAILURE() << "a pass did not settle";
    return {};
  }

  void run_passes(int count) {
    for (int i = 0; i < count; ++i) pass();
  }

  const json::value& workflow() const { return *cluster.store.get(self); }
  std::string condition(const std::string& type) const {
    for (const auto& c : workflow().at("status").at("conditions").as_array()) {
      if (c.at("type") == type.c_str() && c.at("status") == "True")
        return std::string(c.at("reason").as_string());
    }
    return "";
  }
  void finish_job(const std::string& name, const char* type, const char* reason) {
    json::value job = *cluster.store.get({"nvcre.nvidia.com/v1alpha1", "Job", "gpu", name});
    job.as_object()["status"] = json::object{
        {"conditions", json::array{json::object{{"type", type},
                                                {"status", "True"},
                                                {"reason", reason},
                                                {"message", ""},
                                                {"lastTransitionTime", "2026-03-01T12:00:00Z"}}}}};
    cluster.put(std::move(job));
  }
  bool exists(const char* api, const char* kind, const std::string& name) const {
    return cluster.store.get({api, kind, "gpu", name}) != nullptr;
  }
};

TEST_F(WorkflowReconcilerFlow, RunsToSuccessRetryingAFailedGroupThenDeletesCleanly) {
  run_passes(12);
  ASSERT_EQ(condition("InProgress"), "JobRunning");
  for (const auto& g : workflow().at("status").at("orchestration").at("groups").as_array())
    EXPECT_EQ(g.at("phase"), "Running");
  EXPECT_TRUE(exists("v1", "ConfigMap", "demo-settings"));
  EXPECT_TRUE(exists("trainer.kubeflow.org/v1alpha1", "TrainingRuntime",
                     "demo-runtime-aefd3-group-0-iter-1"));
  EXPECT_TRUE(exists("trainer.kubeflow.org/v1alpha1", "TrainingRuntime",
                     "demo-runtime-aefd3-group-1-iter-1"));
  ASSERT_TRUE(exists("nvcre.nvidia.com/v1alpha1", "Job", "demo-group-0-iter-1"));
  ASSERT_TRUE(exists("nvcre.nvidia.com/v1alpha1", "Job", "demo-group-1-iter-1"));

  finish_job("demo-group-0-iter-1", "Failed", "WorkloadFailed");
  finish_job("demo-group-1-iter-1", "Succeeded", "WorkloadCompleted");
  run_passes(12);  // group-0 retried: Job and copy re-created
  ASSERT_TRUE(exists("nvcre.nvidia.com/v1alpha1", "Job", "demo-group-0-iter-1"));
  EXPECT_FALSE(exists("trainer.kubeflow.org/v1alpha1", "TrainingRuntime",
                      "demo-runtime-aefd3-group-1-iter-1"));
  EXPECT_EQ(workflow().at("status").at("orchestration").at("groups").at(0).at("retries"), 1);

  finish_job("demo-group-0-iter-1", "Succeeded", "WorkloadCompleted");
  run_passes(6);
  ASSERT_EQ(condition("Succeeded"), "JobCompleted");
  const json::value* succeeded =
      cluster.store.get({"v1", "ConfigMap", "gpu", "succeeded-nodes-0f0e0d0c"});
  ASSERT_NE(succeeded, nullptr);
  EXPECT_EQ(wf::gunzip(*k8s::decode_base64(
                std::string(succeeded->at("binaryData").at("succeeded-nodes.csv.gz").as_string()))),
            "node-a,node-b,node-c,node-d");
  EXPECT_EQ(workflow().at("status").at("dependencyRefs").as_array().size(), 1u)
      << "only the workflow-scoped ref stays";
  EXPECT_TRUE(pass().actions.empty()) << "a terminal Workflow is left alone";

  json::value deleting = workflow();
  deleting.as_object()["metadata"].as_object()["deletionTimestamp"] = "2026-03-01T13:00:00Z";
  cluster.put(std::move(deleting));
  run_passes(6);
  EXPECT_FALSE(exists("nvcre.nvidia.com/v1alpha1", "Job", "demo-group-0-iter-1"));
  EXPECT_FALSE(exists("v1", "ConfigMap", "demo-settings"));
  EXPECT_TRUE(workflow().at("metadata").at("finalizers").as_array().empty());
}

TEST_F(WorkflowReconcilerFlow, ForeignDependencyHolderFailsTheWorkflowAndIsNeverDeleted) {
  cluster.put(json::parse(
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"demo-settings","namespace":"gpu"}})"));
  run_passes(4);
  EXPECT_EQ(condition("Failed"), "DependencyNameCollision");
  json::value deleting = workflow();
  deleting.as_object()["metadata"].as_object()["deletionTimestamp"] = "2026-03-01T13:00:00Z";
  cluster.put(std::move(deleting));
  run_passes(4);
  EXPECT_TRUE(exists("v1", "ConfigMap", "demo-settings")) << "the foreign object was deleted";
  EXPECT_TRUE(workflow().at("metadata").at("finalizers").as_array().empty());
}

}  // namespace
