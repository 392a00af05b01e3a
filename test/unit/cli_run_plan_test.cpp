// The pure parts of `nvcrectl certification run` / `workloadrun run`: flag checks and their
// literal messages, the Certification of category mode, the derived wait budget, the GPU product
// check, the progress lines and the WorkloadRun report.
#include "api/objects.hpp"
#include "cli/run_plan.hpp"
#include "cli/gpu_nodes.hpp"
#include "cli/run_progress.hpp"
#include "cli/workloadrun_live_commands.hpp"
#include "report/build.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::cli {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(CliRunInputs, LiteralMessagesForBadInputModes) {
  EXPECT_EQ(error_of([] { check_run_inputs("c.yaml", {"communication/nccl-all-reduce"}, {}); }),
            "--cert-file and --category are mutually exclusive");
  EXPECT_EQ(error_of([] { check_run_inputs("", {}, {}); }),
            "either --cert-file or at least one --category is required\n\n"
            "Use 'nvcrectl certification list-categories' to see available categories");
  const std::string partial =
      "--workload-registry, --workload-registry-username, and --workload-registry-password must "
      "all be set together and non-empty";
  EXPECT_EQ(error_of([] { check_run_inputs("c.yaml", {}, {"nvcr.io", "me", ""}); }), partial);
  EXPECT_EQ(error_of([] { check_run_inputs("c.yaml", {}, {"", "", "secret"}); }), partial);
  EXPECT_EQ(error_of([] {
              check_run_inputs("c.yaml", {}, {"nvcr.io", "me", "secret"});
            }),
            "(no error)");
}

TEST(CliRunInputs, CategoriesAreCheckedAgainstTheCatalog) {
  for (const char* bad : {"nccl", "/nccl-all-reduce", "communication/"})
    EXPECT_EQ(error_of([&] { parse_categories({bad}); }),
              std::string("invalid category format \"") + bad + "\": expected domain/variant");
  const std::string unknown = error_of([] { parse_categories({"communication/nccl-nope"}); });
  EXPECT_TRUE(
      unknown.starts_with("unknown category \"communication/nccl-nope\"\n\n"
                          "Available categories:\n  "))
      << unknown;
  EXPECT_NE(unknown.find("\n  communication/nccl-all-reduce"), std::string::npos) << unknown;
  // a/b/c splits at the first slash: an unknown category, not a format error.
  EXPECT_TRUE(error_of([] {
                parse_categories({"communication/nccl-all-reduce/x"});
              }).starts_with("unknown category"));
  const auto parsed = parse_categories(
      {"communication/nccl-all-reduce,communication/nccl-all-gather", "diagnostics/dcgm-level4"});
  ASSERT_EQ(parsed.size(), 3u);
  EXPECT_EQ(parsed[1].variant, "nccl-all-gather");
  EXPECT_EQ(parsed[2].domain, "diagnostics");
}

TEST(CliRunPlan, CategoryModeCopiesOnlyTheFlagsTheUserSet) {
  CategoryFlags flags;
  flags.nodes_per_job = 4;
  flags.enable_mnnvl = false;
  flags.storage_class = "fast";
  const auto certification = certification_from_flags(
      "nvcrectl-x", "ns-x", parse_categories({"communication/nccl-all-reduce"}), flags);
  const json::value object = api::encode_object(certification);
  const json::value expected = json::parse(R"({
    "apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Certification",
    "metadata": {"name": "nvcrectl-x", "namespace": "ns-x",
                 "labels": {"app.kubernetes.io/created-by": "nvcrectl",
                            "app.kubernetes.io/managed-by": "nvcre"}},
    "spec": {"target": {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
             "categories": [{"domain": "communication", "variant": "nccl-all-reduce"}],
             "nodesPerJob": 4, "enableMNNVL": false, "storageClassName": "fast"}})");
  EXPECT_EQ(object, expected) << json::serialize(object);
}

TEST(CliRunPlan, ExitDurationAndArchiveDestination) {
  CategoryFlags flags;
  flags.exit_duration_mins = 45;
  auto certification = certification_from_flags(
      "c", "ns", parse_categories({"communication/nccl-all-reduce"}), flags);
  EXPECT_EQ(certification.spec.options.exitDurationMins, 45);
  EXPECT_TRUE(certification.metadata.annotations.empty());
  set_archive_destination(certification, "lab-s3");
  EXPECT_EQ(api::encode_object(certification)
                .at_pointer("/metadata/annotations/nvcre.nvidia.com~1archive-destination"),
            "lab-s3");
}

TEST(CliRunPlan, ImageRegistryFollowsTheContainerRuntimesRule) {
  EXPECT_EQ(image_registry("ghcr.io/nvidia/cluster-readiness-engine/manager:0.4.0"), "ghcr.io");
  EXPECT_EQ(image_registry("registry.example.com:5000/nvcre/manager"), "registry.example.com:5000");
  EXPECT_EQ(image_registry("localhost/manager:dev"), "localhost");
  EXPECT_EQ(image_registry("nvcre/manager:latest"), "docker.io");
  EXPECT_EQ(image_registry("manager"), "docker.io");
}

TEST(CliRunPlan, GeneratedNamesAreUtcTimestamps) {
  const auto at = std::chrono::system_clock::from_time_t(1780000000);  // 2026-05-28 20:26:40 UTC
  EXPECT_EQ(generated_run_name(at), "nvcrectl-20260528-202640");
}

TEST(CliRunPlan, DerivedTimeoutSumsCategoriesBecauseTheyRunOneAfterAnother) {
  api::CertificationSpec spec;
  spec.categories = parse_categories({"communication/nccl-all-reduce"});
  // 1h default timeoutPerJob x 1 iteration x 3/2.
  EXPECT_EQ(derived_wait_timeout(spec), std::optional<std::chrono::seconds>(90min));
  spec.categories = parse_categories({"communication/nccl-all-reduce", "diagnostics/dcgm-level4"});
  // 1h + 2h (the entry's own timeoutPerJob), x 3/2: the max rule would give 3h.
  EXPECT_EQ(derived_wait_timeout(spec), std::optional<std::chrono::seconds>(270min));
  spec.options.repeatCount = 2;
  EXPECT_EQ(derived_wait_timeout(spec), std::optional<std::chrono::seconds>(540min));
  // Diagnose runs default to 15m per job: 22m30s is under the 30m default, which then applies.
  api::CertificationSpec diagnose;
  diagnose.categories = parse_categories({"communication/nccl-all-reduce"});
  diagnose.options.testScale = "diagnose";
  EXPECT_EQ(derived_wait_timeout(diagnose), std::nullopt);
  diagnose.options.timeoutPerJob = "not-a-duration";
  EXPECT_EQ(derived_wait_timeout(diagnose), std::nullopt);
}

json::value node(const std::string& name, const std::string& product) {
  json::object labels{{"nvidia.com/gpu.present", "true"}};
  if (!product.empty()) labels["nvidia.com/gpu.product"] = product;
  return json::object{{"metadata", {{"name", name}, {"labels", std::move(labels)}}}};
}

TEST(CliRunPlan, GpuNodesMustAgreeOnOneProduct) {
  EXPECT_EQ(error_of([] { uniform_gpu_product({}); }), "no GPU nodes match target");
  EXPECT_EQ(error_of([] { uniform_gpu_product({node("a", "")}); }),
            "no nodes have nvidia.com/gpu.product label");
  const std::string mixed = error_of([] {
    uniform_gpu_product(
        {node("a", "NVIDIA-H100"), node("b", "NVIDIA-GB200"), node("c", "NVIDIA-H100")});
  });
  EXPECT_TRUE(mixed.starts_with("heterogeneous GPUs: NVIDIA-GB200 (1), NVIDIA-H100 (2)")) << mixed;
  EXPECT_EQ(uniform_gpu_product({node("a", "NVIDIA-H100"), node("b", "NVIDIA-H100")}),
            "NVIDIA-H100");
}

TEST(CliRunPlan, PullSecretIsADockerConfigForTheRegistry) {
  const json::value secret = pull_secret("nvcrectl-pull-c", "ns", {"nvcr.io", "$oauthtoken", "pw"});
  EXPECT_EQ(pull_secret_name("c"), "nvcrectl-pull-c");
  EXPECT_EQ(secret.at("type"), "kubernetes.io/dockerconfigjson");
  EXPECT_EQ(secret.at_pointer("/metadata/namespace"), "ns");
  const auto encoded = secret.at_pointer("/data/.dockerconfigjson").as_string();
  EXPECT_FALSE(encoded.empty());
  EXPECT_EQ(std::string_view(encoded).find("pw"), std::string_view::npos);
}

json::value certification(const std::string& statuses, const std::string& conditions = "[]") {
  return json::parse(R"({"spec": {"categories": []}, "status": {"categoryStatuses": )" + statuses +
                     R"(, "conditions": )" + conditions + "}}");
}

TEST(CliWatchProgress, PrintsChangesHeartbeatsAndTheVerdict) {
  WatchProgress progress;
  EXPECT_EQ(progress.heartbeat(15s),
            std::vector<std::string>{"[watch] Waiting for status... (15s)"});
  const auto first = certification(
      R"([{"domain": "communication", "variant": "nccl-all-reduce", "status": "InProgress"},
          {"domain": "diagnostics", "variant": "dcgm-level4", "status": "Pending"}])");
  EXPECT_EQ(progress.observe(first, 3s),
            (std::vector<std::string>{"[watch] communication/nccl-all-reduce: InProgress (3s)",
                                      "[watch] diagnostics/dcgm-level4: Pending (3s)"}));
  EXPECT_TRUE(progress.observe(first, 4s).empty());  // nothing changed
  EXPECT_EQ(progress.heartbeat(75s),
            std::vector<std::string>{"[watch] communication/nccl-all-reduce: InProgress (1m15s)"});
  const auto done = certification(
      R"([{"domain": "communication", "variant": "nccl-all-reduce", "status": "Failed"},
          {"domain": "diagnostics", "variant": "dcgm-level4", "status": "Pending"}])",
      R"([{"type": "Failed", "status": "True"}])");
  EXPECT_EQ(progress.observe(done, 3725s),
            std::vector<std::string>{"[watch] communication/nccl-all-reduce: Failed (1h2m5s)"});
  EXPECT_EQ(WatchProgress::outcome(done), RunOutcome::Failed);
  EXPECT_EQ(WatchProgress::outcome(first), RunOutcome::Running);
  EXPECT_EQ(WatchProgress::outcome_line(RunOutcome::Failed, 90s),
            "[watch] Certification failed. (1m30s)");
  EXPECT_EQ(WatchProgress::outcome_line(RunOutcome::Succeeded, 5s),
            "[watch] Certification succeeded. (5s)");
}

TEST(CliWatchProgress, DuplicatedCategoriesAreNamedByTheirMnnvlSetting) {
  WatchProgress progress;
  const auto object = json::parse(R"({
    "spec": {"target": {}, "categories": [
      {"domain": "communication", "variant": "nccl-all-reduce", "options": {"enableMNNVL": true}},
      {"domain": "communication", "variant": "nccl-all-reduce", "options": {"enableMNNVL": false}}]},
    "status": {"categoryStatuses": [
      {"domain": "communication", "variant": "nccl-all-reduce", "status": "InProgress"},
      {"domain": "communication", "variant": "nccl-all-reduce", "status": "Pending"}]}})");
  EXPECT_EQ(progress.observe(object, 1s),
            (std::vector<std::string>{
                "[watch] communication/nccl-all-reduce (MNNVL Enabled): InProgress (1s)",
                "[watch] communication/nccl-all-reduce (MNNVL Disabled): Pending (1s)"}));
}

TEST(CliWatchProgress, LiveViewShowsTimeInCategoryAndWorkflowProgress) {
  WatchProgress progress;
  progress.observe(certification(R"([{"domain": "communication", "variant": "nccl-all-reduce",
      "status": "InProgress", "workflowRef": {"name": "wf-a"}},
      {"domain": "diagnostics", "variant": "dcgm-level4", "status": "Pending"}])"),
                   10s);
  const std::map<std::string, json::value> workflows{
      {"wf-a", json::parse(R"({"spec": {"orchestration": {"iterations": 3}},
        "status": {"orchestration": {"totalGroups": 4, "currentIteration": 2, "groups": [
          {"phase": "Succeeded"}, {"phase": "Failed"}, {"phase": "Running"}, {"phase": "Pending"}]}}})")}};
  EXPECT_EQ(progress.live_lines(workflows, 75s),
            (std::vector<std::string>{
                "[watch] communication/nccl-all-reduce  InProgress  1m5s      iteration 2/3 · "
                "groups 2/4 done",
                "[watch] diagnostics/dcgm-level4        Pending"}));
  EXPECT_EQ(workflow_progress(json::parse(R"({"status": {"orchestration": {"totalGroups": 2,
      "diagnose": {"stage": "bisection", "round": 3}, "groups": [{"phase": "Succeeded"}]}}})")),
            "diagnose round 3 (bisection) · groups 1/2 done");
  EXPECT_EQ(workflow_progress(json::parse(R"({"status": {}})")), "");
}

TEST(CliWorkloadRun, PhaseAndWatchLine) {
  EXPECT_EQ(workloadrun_phase(json::parse(R"({"status": {}})")), "Pending");
  const auto running = json::parse(R"({"status": {"conditions": [
    {"type": "InProgress", "status": "True", "message": "Workflow train created"}]}})");
  EXPECT_EQ(workloadrun_phase(running), "InProgress");
  EXPECT_EQ(workloadrun_watch_line(running, "train", 20s),
            "[watch] train: InProgress (20s) — Workflow train created");
  EXPECT_EQ(workloadrun_watch_line(json::parse("{}"), "train", 20s),
            "[watch] Waiting for status... (20s)");
  EXPECT_EQ(workloadrun_phase(json::parse(R"({"status": {"conditions": [
    {"type": "InProgress", "status": "False"}, {"type": "Failed", "status": "True"}]}})")),
            "Failed");
}

TEST(CliWorkloadRun, FlagsRewriteTheObject) {
  json::value run = json::parse(R"({"metadata": {"name": "a"}, "spec": {"numNodes": 4}})");
  WorkloadRunRunOptions options;
  options.name = "b";
  options.node_list = "n1,n2";
  options.test_scale = "intra-node";
  options.topology_domain = "clique-1";
  options.topology_key = "nvidia.com/gpu.clique";
  apply_workloadrun_flags(run, options);
  EXPECT_EQ(run, json::parse(R"({"metadata": {"name": "b"}, "spec": {"numNodes": 2,
      "target": {"nodeNames": ["n1", "n2"], "matchExpressions": [
        {"key": "nvidia.com/gpu.clique", "operator": "In", "values": ["clique-1"]}]},
      "orchestration": {"testScale": "intra-node"}}})"));
  options.test_scale = "diagnose";
  EXPECT_EQ(error_of([&] { apply_workloadrun_flags(run, options); }),
            "invalid --test-scale \"diagnose\": must be intra-node, intra-rack or full-scale");
}

TEST(CliWorkloadRun, ReportIsOneCategoryWithNodesFlattenedFromGroups) {
  const json::value run = json::parse(R"({"apiVersion": "nvcre.nvidia.com/v1alpha1",
    "kind": "WorkloadRun", "metadata": {"name": "train", "namespace": "ns"},
    "spec": {"image": "img", "framework": {}},
    "status": {"workflowRef": {"name": "train"}, "failedNodesRef": {"name": "train-failed"},
      "conditions": [{"type": "Failed", "status": "True", "reason": "WorkflowFailed",
                      "message": "group-1 failed", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})");
  report::ReportObjects objects;
  objects.workflows.push_back(json::parse(R"({"apiVersion": "nvcre.nvidia.com/v1alpha1",
    "kind": "Workflow", "metadata": {"name": "train", "namespace": "ns"},
    "spec": {"jobTemplate": {"spec": {}}},
    "status": {"orchestration": {"totalNodes": 4, "nodesPerJob": 2, "totalGroups": 2,
      "detectedPlatform": "aws", "detectedGPUArchitecture": "h100", "groups": [
        {"name": "group-0", "nodes": ["n0", "n1"], "phase": "Succeeded"},
        {"name": "group-1", "nodes": ["n2", "n3"], "phase": "Failed"}]}}})"));
  objects.failed_nodes["train-failed"] = {{"n1", "WorkloadFailed", "exit 1"}};
  const auto built = report::build_workloadrun_report(run, objects, k8s::Clock::now());
  EXPECT_EQ(built.title, "WorkloadRun Report");
  EXPECT_EQ(built.result, report::kResultFailed);
  ASSERT_EQ(built.categories.size(), 1u);
  EXPECT_EQ(built.categories[0].domain, "workloadrun");
  EXPECT_EQ(built.categories[0].variant, "train");
  EXPECT_EQ(built.categories[0].failure_reason, "group-1 failed");
  EXPECT_EQ(built.platform, "aws");
  EXPECT_EQ(built.failed_nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  ASSERT_EQ(built.node_results.size(), 4u);
  EXPECT_EQ(built.node_results[0].status, "Passed");
  EXPECT_EQ(built.node_results[1].status, "Failed");
  EXPECT_EQ(built.node_results[3].group, "group-1");
}

}  // namespace
}  // namespace nvcre::cli
