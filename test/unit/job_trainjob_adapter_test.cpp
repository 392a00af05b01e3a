// The TrainJob adapter: the TrainJob a Job creates, the controller-owned
// runtimePatch every mutation goes through, and TrainJob status -> workload phase.
#include "api/codec.hpp"
#include "k8s/meta.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/naming.hpp"
#include "k8s/object_cache.hpp"
#include "job/job_failure.hpp"
#include "job/job_watches.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::trainjob {
namespace {

namespace json = boost::json;

json::object yaml_object(std::string_view text) { return jsonkit::parse_yaml(text).as_object(); }

// The pod template patch of replicated job `name` under `manager`, or nullptr.
const json::value* pod_patch(const json::object& spec, std::string_view manager,
                             std::string_view name) {
  for (const auto& patch : spec.at("runtimePatches").as_array()) {
    if (patch.at("manager") != json::value(manager)) continue;
    for (const auto& job :
         patch.at_pointer("/trainingRuntimeSpec/template/spec/replicatedJobs").as_array()) {
      if (job.at("name") == json::value(name)) return &job.at_pointer("/template/spec/template");
    }
  }
  return nullptr;
}

const std::string_view kMpiSpec = R"(
runtimeRef: {kind: TrainingRuntime, name: nccl-runtime}
trainer: {numNodes: 4, image: nvcr.io/nvidia/pytorch:26.01-py3}
runtimePatches:
  - manager: nvcre.nvidia.com/catalog
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
            - name: launcher
            - name: node
              template: {spec: {template: {spec: {volumes: [{name: dshm, emptyDir: {medium: Memory}}]}}}}
)";

api::Job job_with(json::object train_job, std::string name = "demo-job") {
  api::Job job;
  job.metadata.name = std::move(name);
  job.metadata.namespace_ = "team-a";
  job.metadata.uid = "uid-7";
  job.spec.workload.trainJob = std::move(train_job);
  return job;
}

TEST(TrainJobAdapter, TargetsComeFromEveryRuntimePatchWithNodeAsDefault) {
  const json::object mpi = yaml_object(kMpiSpec);
  EXPECT_EQ(patch_targets(mpi), (std::vector<std::string>{"launcher", "node"}));
  EXPECT_EQ(worker_target(mpi), "node");  // the first target that is not the launcher
  EXPECT_TRUE(has_launcher_target(mpi));
  const json::object torch = yaml_object("runtimeRef: {name: torch}");
  EXPECT_EQ(patch_targets(torch), std::vector<std::string>{"node"});
  EXPECT_FALSE(has_launcher_target(torch));
  EXPECT_EQ(worker_target(yaml_object(R"(
runtimePatches:
  - manager: x
    trainingRuntimeSpec: {template: {spec: {replicatedJobs: [{name: launcher}, {name: trainer}]}}})")),
            "trainer");
}

TEST(TrainJobAdapter, BuildsTheWorkloadOwnedByTheJobWithThePodLabelOnWorkersOnly) {
  const api::Job job = job_with(yaml_object(kMpiSpec));
  const json::value built = build_train_job(job, {{"kueue.x-k8s.io/queue-name", "team-a"}});
  EXPECT_EQ(built.at("apiVersion"), "trainer.kubeflow.org/v1alpha1");
  EXPECT_EQ(built.at("kind"), "TrainJob");
  EXPECT_EQ(built.at_pointer("/metadata/name"), "demo-job-workload");
  EXPECT_EQ(built.at_pointer("/metadata/namespace"), "team-a");
  EXPECT_EQ(
      built.at_pointer("/metadata/labels"),
      json::parse(R"({"kueue.x-k8s.io/queue-name":"team-a","app.kubernetes.io/managed-by":"nvcre",)"
                  R"("nvcre.nvidia.com/job":"demo-job"})"));
  EXPECT_EQ(
      built.at_pointer("/metadata/ownerReferences"),
      json::parse(
          R"([{"apiVersion":"nvcre.nvidia.com/v1alpha1","kind":"Job","name":"demo-job","uid":"uid-7",)"
          R"("controller":true,"blockOwnerDeletion":true}])"));
  const json::object& spec = built.at("spec").as_object();
  const json::value* worker = pod_patch(spec, kControllerPatchManager, "node");
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->at_pointer("/metadata/labels"),
            json::parse(R"({"nvcre.nvidia.com/job":"demo-job"})"));
  EXPECT_EQ(pod_patch(spec, kControllerPatchManager, "launcher"), nullptr)
      << "launcher pods carry no Job label";
  // The catalog patch is untouched and the controller patch comes after it (applied last, wins).
  EXPECT_EQ(spec.at("runtimePatches").as_array().size(), 2u);
  EXPECT_EQ(spec.at("runtimePatches").as_array()[0],
            yaml_object(kMpiSpec).at("runtimePatches").as_array()[0]);
  // The Job's own spec is never mutated.
  EXPECT_EQ(json::value(*job.spec.workload.trainJob), json::value(yaml_object(kMpiSpec)));
}

TEST(TrainJobAdapter, WorkloadNameIsCappedAt44WithAHash) {
  EXPECT_EQ(workload_name("short"), "short-workload");
  const std::string long_name = "standalone-torch-pretraining-job-with-long-name";
  const std::string name = workload_name(long_name);
  EXPECT_LE(name.size(), 44u);
  EXPECT_EQ(name,
            "standalone-torch-pretraining-job-with-" + k8s::name_hash(long_name + "-workload"));
  EXPECT_EQ(name, k8s::truncate_name(long_name + "-workload", 44));
  EXPECT_NE(workload_name(long_name + "2"), name);
}

TEST(TrainJobAdapter, ReusesTheControllerPatchAndKeepsSuspend) {
  json::object spec = yaml_object(R"(
runtimeRef: {name: torch}
suspend: true
managedBy: kueue.x-k8s.io/multikueue
runtimePatches:
  - manager: nvcre.nvidia.com/controller
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
            - {name: node, template: {spec: {template: {spec: {tolerations: [{operator: Exists}]}}}}}
)");
  const json::value built = build_train_job(job_with(spec), {});
  EXPECT_EQ(built.at_pointer("/spec/suspend"), true);
  EXPECT_EQ(built.at_pointer("/spec/managedBy"), "kueue.x-k8s.io/multikueue");
  const auto& patches = built.at_pointer("/spec/runtimePatches").as_array();
  ASSERT_EQ(patches.size(), 1u) << "one controller patch, extended in place";
  const json::value* node =
      pod_patch(built.at("spec").as_object(), kControllerPatchManager, "node");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->at_pointer("/spec/tolerations").as_array().size(), 1u);
  EXPECT_EQ(node->at_pointer("/metadata/labels/nvcre.nvidia.com~1job"), "demo-job");
}

TEST(TrainJobAdapter, PinsToleratesAndSizesEveryTarget) {
  json::object spec = yaml_object(kMpiSpec);
  set_node_affinity(spec, hostname_node_affinity({"node-a", "node-b"}));
  append_tolerations(spec, json::array{json::object{{"operator", "Exists"}}});
  append_tolerations(spec,
                     json::array{json::object{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}});
  set_num_nodes(spec, 2);
  EXPECT_EQ(nodes_required(spec), 2);
  for (std::string_view target : {"launcher", "node"}) {
    const json::value* pod = pod_patch(spec, kControllerPatchManager, target);
    ASSERT_NE(pod, nullptr) << target;
    EXPECT_EQ(
        pod->at_pointer(
            "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/"
            "nodeSelectorTerms/0/matchExpressions/0"),
        json::parse(
            R"({"key":"kubernetes.io/hostname","operator":"In","values":["node-a","node-b"]})"));
    EXPECT_EQ(pod->at_pointer("/spec/tolerations").as_array().size(), 2u)
        << "tolerations are appended";
  }
  EXPECT_THROW(nodes_required(yaml_object("runtimeRef: {name: x}")), AdapterError);
}

TEST(TrainJobAdapter, NoWorkloadIsAnAdapterError) {
  api::Job job;
  job.metadata.name = "j";
  EXPECT_THROW(build_train_job(job, {}), AdapterError);
}

TEST(TrainJobAdapter, StatusMapsFailedBeforeCompleteBeforeSuspended) {
  auto state = [](std::string_view yaml) { return workload_state(jsonkit::parse_yaml(yaml)); };
  const auto failed = state(R"(
spec: {suspend: true}
status:
  conditions:
    - {type: Complete, status: "True", reason: JobSetCompleted, message: done}
    - {type: Failed, status: "True", reason: JobSetFailed, message: "worker 1 exited 1"})");
  EXPECT_EQ(failed.phase, WorkloadPhase::Failed);
  EXPECT_EQ(failed.reason, "JobSetFailed");
  EXPECT_EQ(failed.message, "worker 1 exited 1");
  const auto complete = state(R"(
status:
  conditions:
    - {type: Failed, status: "False", reason: x}
    - {type: Complete, status: "True", reason: JobSetCompleted, message: done})");
  EXPECT_EQ(complete.phase, WorkloadPhase::Succeeded);
  EXPECT_EQ(complete.message, "done");
  const auto suspended = state("spec: {suspend: true, managedBy: kueue.x-k8s.io/multikueue}");
  EXPECT_EQ(suspended.phase, WorkloadPhase::Pending);
  EXPECT_EQ(suspended.reason, "Suspended");
  EXPECT_EQ(suspended.message,
            "TrainJob is suspended (spec.suspend=true), waiting for it to be resumed; managed by "
            "kueue.x-k8s.io/multikueue");
  EXPECT_EQ(state("spec: {suspend: true}").message,
            "TrainJob is suspended (spec.suspend=true), waiting for it to be resumed");
  EXPECT_EQ(state("spec: {suspend: false}").phase, WorkloadPhase::Running);
  EXPECT_EQ(state("status: {conditions: [{type: Created, status: \"True\"}]}").phase,
            WorkloadPhase::Running);
}

// The workload is controlled by its Job, so the shell's Owns(TrainJob) mapping finds the Job.
TEST(TrainJobAdapter, TheWorkloadIsControlledByItsJob) {
  const json::value built = build_train_job(job_with(yaml_object("runtimeRef: {name: torch}")), {});
  const json::value* owner = k8s::controller_reference(built);
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(json::serialize(*owner),
            json::serialize(json::value(k8s::owner_reference("nvcre.nvidia.com/v1alpha1", "Job",
                                                             "demo-job", "uid-7", true))));
}

TEST(JobWatches, NodeEventsReachEveryJobWithAPodOnTheNode) {
  // The same answer from a plain cache and from one indexing pods by node, as the manager's does.
  k8s::ObjectCache plain;
  k8s::ObjectCache indexed({}, {}, {{{"v1", "Pod"}, {std::string(job::kPodNodeNamePointer)}}});
  for (k8s::ObjectCache* cache : {&plain, &indexed}) {
    auto add_pod = [&](std::string ns, std::string name, std::string node, std::string job) {
      json::object labels;
      if (!job.empty()) labels["nvcre.nvidia.com/job"] = job;
      json::object spec;
      if (!node.empty()) spec["nodeName"] = node;
      cache->upsert(json::object{
          {"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", json::object{{"name", name}, {"namespace", ns}, {"labels", labels}}},
          {"spec", spec}});
    };
    add_pod("a", "p1", "node-1", "job-x");
    add_pod("a", "p2", "node-1", "job-x");
    add_pod("b", "p3", "node-1", "job-y");
    add_pod("a", "p4", "node-2", "job-z");
    add_pod("a", "launcher", "node-1", "");  // launcher pods carry no Job label
    add_pod("a", "pending", "", "job-w");    // not bound yet
    EXPECT_EQ(job::jobs_on_node(*cache, "node-1"),
              (std::vector<k8s::ObjectRef>{{"nvcre.nvidia.com/v1alpha1", "Job", "a", "job-x"},
                                           {"nvcre.nvidia.com/v1alpha1", "Job", "b", "job-y"}}));
    EXPECT_TRUE(job::jobs_on_node(*cache, "node-3").empty());
    EXPECT_TRUE(job::jobs_on_node(*cache, "").empty()) << "an unbound pod is on no node";
    add_pod("a", "p4", "node-1", "job-z");  // rebound elsewhere (a new pod of that name)
    EXPECT_EQ(job::jobs_on_node(*cache, "node-2"), std::vector<k8s::ObjectRef>{});
    EXPECT_EQ(job::jobs_on_node(*cache, "node-1").size(), 3u);
  }
}

// Failure attribution helpers of the Job reconcile that goldens cannot pin cheaply.
TEST(JobFailure, LogTailKeepsTheLastBytesOnACharacterBoundary) {
  EXPECT_EQ(job::detail::tail_bytes("short", 32), "short");
  EXPECT_EQ(job::detail::tail_bytes("0123456789", 4), "6789");
  // "é" is two bytes: a cut inside it starts after it instead.
  EXPECT_EQ(job::detail::tail_bytes("ab\xc3\xa9"
                                    "cd",
                                    3),
            "cd");
  EXPECT_EQ(job::detail::tail_bytes("ab\xc3\xa9"
                                    "cd",
                                    4),
            "\xc3\xa9"
            "cd");
  const std::string big(40000, 'x');
  EXPECT_EQ(job::detail::tail_bytes(big + "END", 32 * 1024).size(), 32u * 1024);
}

TEST(JobFailure, GroupNodesComeFromTheAnnotationElseFromBoundPods) {
  api::Job job;
  job.metadata.annotations["nvcre.nvidia.com/group-nodes"] = " node-b,node-a ,, node-b";
  EXPECT_EQ(job::detail::group_nodes(job, {}), (std::vector<std::string>{"node-a", "node-b"}));
  const json::value bound = jsonkit::parse_yaml("spec: {nodeName: node-c}");
  const json::value pending = jsonkit::parse_yaml("spec: {}");
  EXPECT_EQ(job::detail::group_nodes(job, {&bound}),
            (std::vector<std::string>{"node-a", "node-b"}));
  job.metadata.annotations.clear();  // Unpinned
  EXPECT_EQ(job::detail::group_nodes(job, {&bound, &pending, &bound}),
            std::vector<std::string>{"node-c"});
}

TEST(JobFailure, FailedNodesMergeByNameAndReasonAndStaySorted) {
  std::vector<api::FailedNode> nodes{{"node-b", "WorkloadFailed", "m"}};
  EXPECT_FALSE(
      job::detail::merge_failed_nodes(nodes, {{"node-b", "WorkloadFailed", "other message"}}));
  EXPECT_TRUE(job::detail::merge_failed_nodes(
      nodes, {{"node-b", "HardwareFailureDetected", "h"}, {"node-a", "X", ""}}));
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].name, "node-a");
  EXPECT_EQ(nodes[1].reason, "HardwareFailureDetected");
  EXPECT_EQ(nodes[2].message, "m");
}

}  // namespace
}  // namespace nvcre::trainjob
