// workflow/dependency_plan.hpp and workflow/node_results.hpp: classification, ordering, per-Job
// renaming, ownership checks, and the node-result payload encodings.
#include "api/codec.hpp"
#include "k8s/meta.hpp"
#include "k8s/kubeconfig.hpp"
#include "workflow/dependency_plan.hpp"
#include "workflow/node_results.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
namespace wf = nvcre::workflow;
namespace k8s = nvcre::k8s;

api::DependencySpec dep(const char* json_text) { return {json::parse(json_text).as_object(), {}}; }

api::JobSpec job_spec(const char* json_text) {
  return api::decode<api::JobSpec>(json::parse(json_text));
}

std::vector<std::string> names(const std::vector<api::DependencySpec>& deps) {
  std::vector<std::string> out;
  for (const auto& d : deps) out.push_back(wf::dependency_name(d));
  return out;
}

TEST(WorkflowDependencyPlan, ResourceNamesNeedALetterAndRfc1123Shape) {
  EXPECT_TRUE(wf::is_resource_name("demo-runtime"));
  EXPECT_TRUE(wf::is_resource_name("a.b-c"));
  EXPECT_FALSE(wf::is_resource_name("128"));
  EXPECT_FALSE(wf::is_resource_name("ab"));
  EXPECT_FALSE(wf::is_resource_name("-abc"));
  EXPECT_FALSE(wf::is_resource_name("Abc"));
}

TEST(WorkflowDependencyPlan, ClassifiesThroughReferencesAndSharedNames) {
  const std::vector<api::DependencySpec> deps = {
      dep(R"({"kind":"ComputeDomain","metadata":{"name":"cd"},"spec":{"channel":{"resourceClaimTemplate":{"name":"chan-tpl"}}}})"),
      dep(R"({"kind":"TrainingRuntime","metadata":{"name":"rt"},"spec":{"claims":["chan-tpl"],"pvc":"data"}})"),
      dep(R"({"kind":"PersistentVolumeClaim","metadata":{"name":"data"}})"),
      dep(R"({"kind":"ConfigMap","metadata":{"name":"settings"}})"),
      dep(R"({"kind":"ClusterTrainingRuntime","metadata":{"name":"shared"},"spec":{"x":"chan-tpl"}})")};
  const auto spec = job_spec(R"({"workload":{"trainJob":{"runtimeRef":{"name":"rt"}}},
                                 "workloadMetadata":{"labels":{"queue":"settings"}}})");
  const auto classified = wf::classify_dependencies(deps, spec);
  EXPECT_EQ(names(classified.job_scoped), (std::vector<std::string>{"cd", "rt", "data"}));
  EXPECT_EQ(names(classified.workflow_scoped), (std::vector<std::string>{"settings", "shared"}))
      << "workload labels never make a dependency job-scoped; Cluster kinds never are";
}

TEST(WorkflowDependencyPlan, OrdersReferencedFirstAndKeepsInputOrderOtherwise) {
  const auto ordered = wf::order_dependencies({dep(R"({"metadata":{"name":"a"},"uses":"c"})"),
                                               dep(R"({"metadata":{"name":"b"}})"),
                                               dep(R"({"metadata":{"name":"c"}})")});
  EXPECT_EQ(names(ordered), (std::vector<std::string>{"b", "c", "a"}));
  const auto cycle = wf::order_dependencies({dep(R"({"metadata":{"name":"x"},"uses":"y"})"),
                                             dep(R"({"metadata":{"name":"y"},"uses":"x"})"),
                                             dep(R"({"metadata":{"name":"z"}})")});
  EXPECT_EQ(names(cycle), (std::vector<std::string>{"z", "x", "y"}));
}

TEST(WorkflowDependencyPlan, SuffixFollowsTheJobNamingRule) {
  EXPECT_EQ(wf::job_dependency_suffix(1, false, "group-0", 1, "demo"), "-aefd3-job");
  EXPECT_EQ(wf::job_dependency_suffix(2, false, "group-1", 1, "demo"), "-aefd3-group-1-iter-1");
  EXPECT_EQ(wf::job_dependency_suffix(1, true, "group-0", 2, "demo"), "-aefd3-group-0-iter-2");
}

TEST(WorkflowDependencyPlan, RenamesReferencesButNotMetadata) {
  const auto spec = job_spec(R"({"workload":{"trainJob":{"runtimeRef":{"name":"rt"},
      "runtimePatches":[{"manager":"m","trainingRuntimeSpec":{"template":{"metadata":{"labels":{"q":"rt"}},
        "spec":{"replicatedJobs":[{"name":"node","template":{"spec":{"template":{"metadata":{"labels":{"q":"rt"}},
          "spec":{"volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"rt"}}]}}}}}]}}}}]}},
      "workloadMetadata":{"labels":{"kueue.x-k8s.io/queue-name":"rt"}}})");
  const auto renamed = wf::rename_job_spec(spec, {{"rt", "rt-x"}});
  const json::value out = api::encode(renamed);
  const auto& train_job = out.at("workload").at("trainJob");
  EXPECT_EQ(train_job.at("runtimeRef").at("name"), "rt-x");
  const auto& patch = train_job.at("runtimePatches").at(0).at("trainingRuntimeSpec").at("template");
  EXPECT_EQ(patch.at("metadata").at("labels").at("q"), "rt");
  const auto& pod =
      patch.at("spec").at("replicatedJobs").at(0).at("template").at("spec").at("template");
  EXPECT_EQ(pod.at("metadata").at("labels").at("q"), "rt");
  EXPECT_EQ(pod.at("spec").at("volumes").at(0).at("persistentVolumeClaim").at("claimName"), "rt-x");
  EXPECT_EQ(out.at("workloadMetadata").at("labels").at("kueue.x-k8s.io/queue-name"), "rt");
}

TEST(WorkflowDependencyPlan, LogProfileNamesAreNeverRenamed) {
  // "nccl-loopback" is both the copies' shared app label and the LogProfile's name.
  const auto spec = job_spec(R"({"workload":{"trainJob":{"runtimeRef":{"name":"nccl-loopback"}}},
      "bandwidthMeasurement":{"logProfileRef":"nccl-loopback"},
      "goodputMeasurement":{"logProfileRef":"nccl-loopback"}})");
  const json::value out =
      api::encode(wf::rename_job_spec(spec, {{"nccl-loopback", "nccl-loopback-x"}}));
  EXPECT_EQ(out.at("workload").at("trainJob").at("runtimeRef").at("name"), "nccl-loopback-x");
  EXPECT_EQ(out.at("bandwidthMeasurement").at("logProfileRef"), "nccl-loopback");
  EXPECT_EQ(out.at("goodputMeasurement").at("logProfileRef"), "nccl-loopback");
}

TEST(WorkflowDependencyPlan, OwnershipChecks) {
  const auto annotated =
      json::parse(R"({"metadata":{"annotations":{"nvcre.nvidia.com/workflow-uid":"u1"}}})");
  const auto owned =
      json::parse(R"({"metadata":{"ownerReferences":[{"uid":"u1","controller":true}]}})");
  const auto labelled =
      json::parse(R"({"metadata":{"labels":{"nvcre.nvidia.com/workflow":"demo"}}})");
  EXPECT_TRUE(wf::owned_by_workflow(annotated, "u1"));
  EXPECT_TRUE(wf::owned_by_workflow(owned, "u1"));
  EXPECT_FALSE(wf::owned_by_workflow(labelled, "u1")) << "a label is not a UID-strong identity";
  EXPECT_TRUE(wf::owned_for_cleanup(labelled, "u1", "demo"));
  EXPECT_FALSE(wf::owned_by_workflow(json::parse(R"({"metadata":{}})"), ""))
      << "an empty UID proves nothing";
  EXPECT_TRUE(k8s::is_controlled_by(owned, "u1"));
  EXPECT_FALSE(k8s::is_controlled_by(annotated, "u1"));
}

TEST(WorkflowNodeResults, GzipRoundTripsAndBase64IsStandard) {
  for (std::string text : {std::string(), std::string("node-a,node-b"), std::string(100000, 'x')}) {
    EXPECT_EQ(wf::gunzip(wf::gzip(text)), text);
  }
  EXPECT_EQ(wf::base64_encode("ab"), "YWI=");
  EXPECT_EQ(wf::base64_encode("abc"), "YWJj");
  EXPECT_EQ(*nvcre::k8s::decode_base64(wf::base64_encode(wf::gzip("x"))), wf::gzip("x"));
  EXPECT_THROW(wf::gunzip("not gzip"), std::runtime_error);
}

TEST(WorkflowNodeResults, FailedNodesMergeByNameAndReason) {
  const auto merged = wf::merge_failed_nodes(
      {{"n2", "WorkloadFailed", "old"}, {"n1", "ThresholdViolation", ""}},
      {{"n2", "WorkloadFailed", "new"}, {"n1", "HardwareFailureDetected", "x"}, {"", "x", ""}});
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].reason, "HardwareFailureDetected");
  EXPECT_EQ(merged[1].reason, "ThresholdViolation");
  EXPECT_EQ(merged[2].message, "old") << "the first record of a (name, reason) wins";
}

TEST(WorkflowNodeResults, SucceededNodesAreUnionedIntoTheStoredList) {
  api::Workflow workflow;
  workflow.metadata.name = "demo";
  workflow.metadata.namespace_ = "gpu";
  workflow.metadata.uid = "12345678-aaaa";
  auto created = wf::node_results_write(wf::NodeResultKind::Succeeded, workflow, nullptr,
                                        {"n2", "n1", "n2"}, {});
  ASSERT_TRUE(created);
  EXPECT_EQ(created->name, "succeeded-nodes-12345678");
  EXPECT_EQ(created->action.verb, nvcre::k8s::ActionVerb::Create);
  json::value stored = created->action.body;
  stored.as_object()["metadata"].as_object()["resourceVersion"] = "7";
  auto payload = [](const json::value& cm) {
    return wf::gunzip(*nvcre::k8s::decode_base64(
        std::string(cm.at("binaryData").at("succeeded-nodes.csv.gz").as_string())));
  };
  EXPECT_EQ(payload(stored), "n1,n2");
  EXPECT_FALSE(wf::node_results_write(wf::NodeResultKind::Succeeded, workflow, &stored, {"n1"}, {}))
      << "nothing new";
  auto updated =
      wf::node_results_write(wf::NodeResultKind::Succeeded, workflow, &stored, {"n0"}, {});
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->action.verb, nvcre::k8s::ActionVerb::Update);
  EXPECT_EQ(updated->action.body.at("metadata").at("resourceVersion"), "7");
  EXPECT_EQ(payload(updated->action.body), "n0,n1,n2");
}

}  // namespace
