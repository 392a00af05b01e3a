// The category build split into stages (platform/node_facts.hpp, certification/
// category_resolution.hpp, workflow_assembly.hpp, build_request.hpp): detection from per-node facts
// agrees with platform/detect.hpp, the controller's stage-by-stage path produces what the offline
// composition build_category_workflow does, refusals come back as BuildFailure values, and the
// Certification reconcile asks for a build before it plans a Create, then plans it from the answer.
#include "api/codec.hpp"
#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/meta.hpp"
#include "certification/build.hpp"
#include "certification/build_request.hpp"
#include "certification/reconciler.hpp"
#include "certification/workflow_assembly.hpp"
#include "platform/node_facts.hpp"
#include "sim/cluster_profile.hpp"
#include "test/support/golden.hpp"
#include "workflow/workflow_document.hpp"
#include "test/support/reconcile_case.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using namespace nvcre;

json::value node(const std::string& name, const std::string& provider,
                 std::optional<std::string> product) {
  json::object labels;
  if (product) labels["nvidia.com/gpu.product"] = *product;
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", json::object{{"name", name}, {"resourceVersion", "7"}, {"labels", labels}}},
      {"spec", json::object{{"providerID", provider}}}};
}

api::Certification certification_for(const std::string& categories_yaml,
                                     const std::string& extra_spec = "") {
  return api::decode_object<api::Certification>(nvcre::jsonkit::parse_yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: rack7, namespace: gpu-validation, uid: 1111-2222, resourceVersion: "42"}
spec:
  target:
    nodeSelector: {nvidia.com/gpu.present: "true"}
)" + extra_spec + "  categories:\n" + categories_yaml));
}

std::vector<json::value> cluster(const std::string& profile) {
  return sim::build_cluster_nodes(sim::parse_cluster_profile(profile));
}

std::string encoded(const certification::CategoryBuild& build) {
  return json::serialize(api::encode_object(build.workflow));
}

TEST(CertificationBuildStages, DetectionFromNodeFactsAgreesWithPlatformDetect) {
  const std::vector<std::vector<json::value>> node_sets{
      {},
      {node("a", "aws:///x", "NVIDIA-H100-80GB-HBM3"),
       node("b", "aws:///y", "NVIDIA-H100-80GB-HBM3")},
      {node("a", "gce://p", "NVIDIA-A100-SXM4-80GB"),
       node("b", "aws:///y", "NVIDIA-H100-80GB-HBM3"), node("c", "", "NVIDIA-H100-80GB-HBM3")},
      {node("a", "", std::nullopt), node("b", "baremetal://z", std::nullopt)},
      {node("a", "ocid1.x", ""), node("b", "ocid1.y", "unknown-gpu"),
       node("c", "ocid1.z", std::nullopt)},
      {node("a", "kubevirt://q", "NVIDIA-GB200"),
       node("b", "kubevirt://q", "NVIDIA-H100-80GB-HBM3")},
  };
  for (const auto& nodes : node_sets) {
    const auto facts = platform::detect_nodes(nodes);
    const auto selection = platform::select_primary_architecture(nodes);
    EXPECT_EQ(facts.platform, platform::detect_platform(nodes));
    EXPECT_EQ(facts.majority_architecture, platform::majority_gpu_architecture(nodes));
    EXPECT_EQ(facts.selection.architecture, selection.architecture);
    EXPECT_EQ(facts.selection.kept, selection.kept);
    EXPECT_EQ(facts.selection.excluded, selection.excluded);
    EXPECT_EQ(facts.nodes.size(), nodes.size());
  }
}

TEST(CertificationBuildStages, NodeFactsCarryTheResourceVersionTheyWereDerivedFrom) {
  const auto facts = platform::derive_node_facts(node("a", "aws:///x", "NVIDIA-H100-80GB-HBM3"));
  EXPECT_EQ(facts.name, "a");
  EXPECT_EQ(facts.resource_version, "7");
  EXPECT_EQ(facts.platform, "aws");
  EXPECT_EQ(facts.architecture(), "h100");
  EXPECT_EQ(platform::derive_node_facts(node("b", "", std::nullopt)).architecture(), "unknown");
}

// What the build services do one after the other is what the offline composition does at once.
TEST(CertificationBuildStages, ControllerStagesEqualTheComposition) {
  const auto nodes = cluster("aws:h100:4");
  const auto cert =
      certification_for(R"(
    - {domain: communication, variant: nccl-all-reduce}
    - {domain: training, variant: nemotron5-8b}
)",
                        "  gangScheduler: {schedulerName: kai-scheduler, queue: burnin}\n");
  for (const auto& category : cert.spec.categories) {
    const auto facts = platform::detect_nodes(nodes);
    auto resolved =
        certification::resolve_target_category(cert, category, facts, catalog::Catalog::builtin());
    const auto staged = certification::assemble_category_workflow(std::move(resolved), cert);
    certification::BuildInput input{nodes, "h100", false};
    const auto composed = certification::build_category_workflow(cert, category, input);
    EXPECT_EQ(encoded(staged), encoded(composed)) << category.variant;
    EXPECT_EQ(staged.platform, "aws");
    EXPECT_EQ(staged.gpu_architecture, "h100");
    EXPECT_EQ(staged.events.size(), composed.events.size());
  }
}

// The Workflow's durations carry Go's spelling, as the reference controller's duration-typed fields
// write them: the user's 90m and 9m, the training entry's 24h.
TEST(CertificationBuildStages, WorkflowDurationsAreWrittenInGoSpelling) {
  const auto nodes = cluster("aws:h100:4");
  const auto cert = certification_for(R"(
    - domain: communication
      variant: nccl-all-reduce
      options: {timeoutPerJob: 90m, measurementTimeout: 9m, thresholds: {busBandwidthGBps: "value >= 1"}}
    - {domain: training, variant: nemotron5-8b}
)");
  certification::BuildInput input{nodes, "h100", false};
  const auto nccl = certification::build_category_workflow(cert, cert.spec.categories[0], input);
  EXPECT_EQ(nccl.workflow.spec.orchestration.execution.timeoutPerJob, "1h30m0s");
  ASSERT_TRUE(nccl.workflow.spec.validation && nccl.workflow.spec.validation->performance);
  EXPECT_EQ(nccl.workflow.spec.validation->performance->measurementTimeout, "9m0s");
  const auto training =
      certification::build_category_workflow(cert, cert.spec.categories[1], input);
  EXPECT_EQ(training.workflow.spec.orchestration.execution.timeoutPerJob, "24h0m0s");
}

TEST(CertificationBuildStages, AnswerBuildRequestRunsEveryStageAgainstTheCache) {
  k8s::ObjectCache cache;
  std::vector<platform::NodeRef> refs;
  for (auto& n : cluster("gcp:h100:2")) {
    refs.push_back({std::string(n.at("metadata").at("name").as_string()), ""});
    cache.upsert(std::move(n));
  }
  const auto cert = certification_for("    - {domain: communication, variant: nccl-all-reduce}\n");
  const certification::CategoryBuildRequest request{cert, cert.spec.categories.front(), refs};
  const auto answer =
      certification::answer_build_request(request, cache, catalog::Catalog::builtin());
  ASSERT_TRUE(std::holds_alternative<certification::CategoryBuild>(answer));
  certification::BuildInput input{cluster("gcp:h100:2"), "h100", false};
  EXPECT_EQ(
      encoded(std::get<certification::CategoryBuild>(answer)),
      encoded(certification::build_category_workflow(cert, cert.spec.categories.front(), input)));
}

TEST(CertificationBuildStages, RefusalsAreAnswersWithTheConditionReason) {
  const auto facts = platform::detect_nodes(cluster("aws:h100:2"));
  const auto& catalog = catalog::Catalog::builtin();
  auto refusal = [&](const api::Certification& cert, const platform::DetectionFacts& with) {
    const certification::CategoryBuildRequest request{cert, cert.spec.categories.front(), {}};
    auto resolved = certification::resolve_for_request(request, with, catalog);
    if (auto* failure = std::get_if<certification::BuildFailure>(&resolved)) return *failure;
    auto built = certification::assemble_for_request(
        cert, std::get<certification::ResolvedCategory>(std::move(resolved)));
    auto* failure = std::get_if<certification::BuildFailure>(&built);
    return failure ? *failure : certification::BuildFailure{};
  };
  EXPECT_EQ(refusal(certification_for("    - {domain: nope, variant: nothing}\n"), facts),
            (certification::BuildFailure{"CategoryNotFound",
                                         "unknown certification category: nope/nothing"}));
  EXPECT_EQ(
      refusal(certification_for("    - {domain: communication, variant: nccl-all-reduce}\n"),
              platform::detect_nodes({node("a", "aws:///x", std::nullopt)})),
      (certification::BuildFailure{"WorkflowValidationFailed",
                                   "cannot determine GPU architecture from target nodeSelector "
                                   "(nvidia.com/gpu.product label is required)"}));
  const auto conflict =
      refusal(certification_for(R"(
    - domain: communication
      variant: nccl-all-reduce
      options: {workloadMetadata: {labels: {kai.scheduler/queue: other}}}
)",
                                "  gangScheduler: {schedulerName: kai-scheduler, queue: burnin}\n"),
              facts);
  // The reference controller's reason and words: the category, the field, both values.
  EXPECT_EQ(conflict, (certification::BuildFailure{
                          "WorkflowValidationFailed",
                          "applying resolved transforms for communication/nccl-all-reduce: "
                          "spec.jobTemplate.spec.workloadMetadata.labels[\"kai.scheduler/queue\"]: "
                          "conflicting label value \"other\", expected \"burnin\""}));
}

// The reconcile asks before it plans a Create (and plans nothing else), then plans it from the
// answer.
TEST(CertificationBuildStages, ReconcileAsksForTheBuildThenPlansFromTheAnswer) {
  const auto cases = nvcre::testing::load_cases("certification-reconcile");
  auto found = std::find_if(cases.begin(), cases.end(),
                            [](const auto& c) { return c.name == "first-workflow-nccl-gang"; });
  ASSERT_NE(found, cases.end());
  const auto input = nvcre::testing::load_reconcile_case(*found);
  reconcile::BuildAnswers answers;
  const reconcile::Context asking{&*input.object, input.cache,       input.live, input.outcome,
                                  input.now,      input.no_pod_logs, answers,    input.no_memo};
  const auto first = certification::reconcile_certification(asking);
  ASSERT_EQ(first.wanted_builds.size(), 1U);
  EXPECT_TRUE(first.plan.actions.empty());
  EXPECT_TRUE(first.plan.events.empty());
  EXPECT_TRUE(first.plan.error.empty());

  const auto& request = first.wanted_builds.front();
  const auto answer =
      certification::answer_build_request(request, input.cache, catalog::Catalog::builtin());
  const std::string key = reconcile::build_request_key(request);
  answers.insert_or_assign(key, answer);
  const auto second = certification::reconcile_certification(asking);
  EXPECT_TRUE(second.wanted_builds.empty());
  // The asking pass's continuation plans what a whole new pass with the answer plans.
  ASSERT_TRUE(first.resume);
  const auto resumed = first.resume(answers);
  EXPECT_TRUE(resumed.wanted_builds.empty());
  EXPECT_EQ(json::serialize(k8s::plan_to_json(resumed.plan)),
            json::serialize(k8s::plan_to_json(second.plan)));
  ASSERT_FALSE(second.plan.actions.empty());
  EXPECT_EQ(second.plan.actions.front().verb, k8s::ActionVerb::Create);
  // The built Workflow, created with the finalizer its own controller would add.
  json::value built = api::encode_object(std::get<certification::CategoryBuild>(answer).workflow);
  k8s::add_finalizer(built, workflow::kWorkflowFinalizer);
  EXPECT_EQ(json::serialize(second.plan.actions.front().body), json::serialize(built));

  // A refusal answer fails the Certification as a build error did (CategoryNotFound is reported
  // as WorkflowValidationFailed once past initialization).
  answers.insert_or_assign(key, certification::BuildFailure{"CategoryNotFound", "gone"});
  const auto third = certification::reconcile_certification(asking);
  EXPECT_EQ(third.plan.error, "gone");
  EXPECT_EQ(json::serialize(k8s::plan_to_json(first.resume(answers).plan)),
            json::serialize(k8s::plan_to_json(third.plan)));
  ASSERT_EQ(third.plan.actions.size(), 1U);
  EXPECT_NE(json::serialize(third.plan.actions.front().body).find("WorkflowValidationFailed"),
            std::string::npos);
}

}  // namespace
