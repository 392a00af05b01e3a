// workloadrun/build.hpp and workloadrun/platform_overrides.hpp: the paths the render goldens do not
// reach (controller mode, no nodes, errors) and a few exact facts of the reference.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "platform/detect.hpp"
#include "overrides/overrides.hpp"
#include "overrides/when_match.hpp"
#include "workloadrun/build.hpp"
#include "workloadrun/platform_overrides.hpp"

namespace json = boost::json;
using namespace nvcre;

namespace {

api::WorkloadRun run_from(const std::string& yaml) {
  return api::decode_object<api::WorkloadRun>(nvcre::jsonkit::parse_yaml(yaml));
}

const std::string kTorchRun = R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: WorkloadRun
metadata: {name: r, namespace: ns, uid: u-1}
spec:
  target: {nodeSelector: {nvidia.com/gpu.product: NVIDIA-GB200}}
  image: img
  numNodes: 2
  framework: {torch: {script: t.py}}
  orchestration: {testScale: intra-rack}
  overrides:
    - when: {platform: {equals: gcp}}
      orchestration: {iterations: 3}
    - when: {platform: {equals: aws}}
      orchestration: {iterations: 5}
)";

workloadrun::BuildInput aws_gb200(bool offline) {
  workloadrun::BuildInput input;
  input.offline = offline;
  input.nodes.push_back(
      platform::synthetic_node({{"nvidia.com/gpu.product", "NVIDIA-GB200"}}, "aws"));
  return input;
}

}  // namespace

TEST(WorkloadRunGoQuote, GoEscapes) {
  EXPECT_EQ(workloadrun::go_quote("a b"), "\"a b\"");
  EXPECT_EQ(workloadrun::go_quote("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
  EXPECT_EQ(workloadrun::go_quote("a\nb\t\x01"), "\"a\\nb\\t\\x01\"");
  EXPECT_EQ(workloadrun::go_quote(""), "\"\"");
}

TEST(WorkloadRunBuild, ControllerModeKeepsOwnerAndEveryOverrideForTheWorkflowController) {
  auto build = workloadrun::build_workloadrun_workflow(run_from(kTorchRun), aws_gb200(false));
  const auto& workflow = build.workflow;
  EXPECT_EQ(workflow.metadata.name, "r");
  EXPECT_EQ(workflow.metadata.namespace_, "ns");
  EXPECT_EQ(workflow.metadata.labels.at("nvcre.nvidia.com/workload-run"), "r");
  EXPECT_EQ(workflow.metadata.labels.at("app.kubernetes.io/managed-by"), "nvcre");
  ASSERT_EQ(workflow.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(workflow.metadata.ownerReferences[0].kind, "WorkloadRun");
  EXPECT_EQ(workflow.metadata.ownerReferences[0].uid, "u-1");
  EXPECT_EQ(build.platform, "aws");
  EXPECT_EQ(build.gpu_architecture, "gb200");
  EXPECT_EQ(build.gpus_per_node, 4);
  // The platform overrides, unfiltered, then the user's two (gcp included),
  // unapplied.
  ASSERT_GE(workflow.spec.overrides.size(), 2u);
  const auto& user_gcp = workflow.spec.overrides[workflow.spec.overrides.size() - 2];
  ASSERT_TRUE(user_gcp.when.platform);
  EXPECT_EQ(user_gcp.when.platform->equals, "gcp");
  EXPECT_EQ(workflow.spec.orchestration.iterations, 1);
  EXPECT_TRUE(build.applied_overrides.empty());
  // What the Workflow controller makes of them on aws/gb200 is what the offline render prints.
  auto resolved = nvcre::overrides::resolve_overrides(
      workflow.spec, nvcre::overrides::match_context_for(workflow.spec, "aws", "gb200", 0));
  EXPECT_EQ(resolved.spec.orchestration.iterations, 5);
  // intra-rack: strict domains survive the platform topology override that sets the key.
  ASSERT_TRUE(resolved.spec.orchestration.topology);
  EXPECT_EQ(resolved.spec.orchestration.topology->topologyKey,
            "topology.k8s.aws/network-node-layer-1");
  EXPECT_TRUE(resolved.spec.orchestration.topology->strictDomain);
  auto offline =
      workloadrun::build_workloadrun_workflow(run_from(kTorchRun), aws_gb200(true)).workflow.spec;
  resolved.spec.overrides.clear();
  EXPECT_EQ(api::encode(resolved.spec), api::encode(offline));
}

TEST(WorkloadRunBuild, OfflineClearsOverrides) {
  auto build = workloadrun::build_workloadrun_workflow(run_from(kTorchRun), aws_gb200(true));
  EXPECT_TRUE(build.workflow.spec.overrides.empty());
  EXPECT_FALSE(build.applied_overrides.empty());
}

TEST(WorkloadRunBuild, NoNodesUsesUnknownArchitectureDefaultsAndDefaultTarget) {
  auto run = run_from(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: WorkloadRun
metadata: {name: r}
spec: {image: img, numNodes: 1, framework: {exec: {command: [/bin/true]}}}
)");
  auto build = workloadrun::build_workloadrun_workflow(run, {});
  EXPECT_EQ(build.gpus_per_node, 4);
  ASSERT_TRUE(build.workflow.spec.orchestration.target);
  EXPECT_EQ(build.workflow.spec.orchestration.target->nodeSelector.at("nvidia.com/gpu.present"),
            "true");
  EXPECT_EQ(build.workflow.spec.orchestration.execution.timeoutPerJob, "24h0m0s");
  EXPECT_TRUE(build.workflow.metadata.ownerReferences.empty());
}

TEST(WorkloadRunBuild, ErrorsNameTheFieldAndReason) {
  auto run = run_from(kTorchRun);
  run.spec.numNodes = 0;
  try {
    workloadrun::build_workloadrun_workflow(run, aws_gb200(true));
    FAIL() << "expected BuildError";
  } catch (const workloadrun::BuildError& error) {
    EXPECT_EQ(error.reason, "BuildFailed");
    EXPECT_STREQ(error.what(),
                 "workloadrun r: spec.numNodes must be at least 1 (nodes per job group), got 0");
  }
  run = run_from(kTorchRun);
  run.spec.gangScheduler = api::GangSchedulerSpec{"kai-scheduler", "q1", ""};
  run.spec.workloadMetadata = api::WorkloadMetadata{{{"kai.scheduler/queue", "other"}}};
  try {
    workloadrun::build_workloadrun_workflow(run, aws_gb200(true));
    FAIL() << "expected BuildError";
  } catch (const workloadrun::BuildError& error) {
    EXPECT_EQ(error.reason, "GangSchedulingConflict");
  }
}

TEST(WorkloadRunPlatformOverrides, MpiArgsOnlyForMpiAndUserEnvReplacesOperands) {
  workloadrun::OverrideConfig config;
  config.entryName = "r";
  config.gpusPerNode = 4;
  config.frameworkType = "torch";
  for (const auto& item : workloadrun::build_platform_overrides(config))
    EXPECT_TRUE(item.mpiArgs.empty());
  config.frameworkType = "mpi";
  config.userEnv = {api::EnvVar{"NCCL_NET_PLUGIN", "ofi", {}}};
  bool found = false;
  for (const auto& item : workloadrun::build_platform_overrides(config)) {
    if (item.mpiArgs == std::vector<std::string>{"-x", "NCCL_NET_PLUGIN=ofi"}) found = true;
  }
  EXPECT_TRUE(found);
}
