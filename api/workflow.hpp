#pragma once
// Workflow (nvcre.nvidia.com/v1alpha1): one category / one WorkloadRun execution. Partitions the
// target nodes into groups, runs one Job per group per iteration, manages dependencies and
// conditional overrides, aggregates results.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/job.hpp"
#include "api/meta.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// Condition reasons of the Workflow tier; inactive execution conditions use
// inactive_reason::kNotApplicable. job_reason::kJobTimedOut is written onto the Job.
namespace workflow_reason {
inline constexpr std::string_view kGroupsPartitioned = "GroupsPartitioned";
inline constexpr std::string_view kJobCreated = "JobCreated";
inline constexpr std::string_view kJobRunning = "JobRunning";
inline constexpr std::string_view kJobCompleted = "JobCompleted";
inline constexpr std::string_view kJobFailed = "JobFailed";
inline constexpr std::string_view kJobHardwareFailed = "JobHardwareFailed";
inline constexpr std::string_view kJobValidationFailed = "JobValidationFailed";
inline constexpr std::string_view kJobCreationError = "JobCreationError";
inline constexpr std::string_view kIterationCompleted = "IterationCompleted";
inline constexpr std::string_view kIterationsFailed = "IterationsFailed";
inline constexpr std::string_view kDependencyCreationError = "DependencyCreationError";
inline constexpr std::string_view kNodeDiscoveryError = "NodeDiscoveryError";
inline constexpr std::string_view kPartitionError = "PartitionError";
inline constexpr std::string_view kJobNameCollision = "JobNameCollision";
inline constexpr std::string_view kDependencyNameCollision = "DependencyNameCollision";
inline constexpr std::string_view kGangSchedulingConflict = "GangSchedulingConflict";
}  // namespace workflow_reason

// Warning events of the Workflow controller.
namespace workflow_event {
inline constexpr std::string_view kHeterogeneousPlatformStatusUpdateFailed =
    "HeterogeneousPlatformStatusUpdateFailed";
inline constexpr std::string_view kOverrideErrorStatusUpdateFailed =
    "OverrideErrorStatusUpdateFailed";
}  // namespace workflow_event

// GroupStatus.phase / GroupIterationResult.phase.
namespace group_phase {
inline constexpr std::string_view kPending = "Pending";
inline constexpr std::string_view kRunning = "Running";
inline constexpr std::string_view kSucceeded = "Succeeded";
inline constexpr std::string_view kFailed = "Failed";
}  // namespace group_phase

// DiagnoseStatus.stage / CrossBoundaryState.originStage / InfrastructureFault.stage.
namespace diagnose_stage {
inline constexpr std::string_view kIntraScreening = "intra-screening";
inline constexpr std::string_view kIntraScreeningNoNVL = "intra-screening-no-nvl";
inline constexpr std::string_view kInterScreening = "inter-screening";
inline constexpr std::string_view kBisection = "bisection";
inline constexpr std::string_view kConfirmation = "confirmation";
inline constexpr std::string_view kCrossBoundary = "cross-boundary";
inline constexpr std::string_view kComplete = "complete";
}  // namespace diagnose_stage

// DependencyResourceRef.scope.
namespace dependency_scope {
inline constexpr std::string_view kWorkflow = "workflow";
inline constexpr std::string_view kJob = "job";
}  // namespace dependency_scope

// NodeResult.status / DomainResult.status.
namespace node_result_status {
inline constexpr std::string_view kPassed = "Passed";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kRunning = "Running";
}  // namespace node_result_status

// WhenSpec.topology.mode.
namespace topology_mode {
inline constexpr std::string_view kSingleRack = "single-rack";
inline constexpr std::string_view kMultiRack = "multi-rack";
inline constexpr std::string_view kMultiZone = "multi-zone";
}  // namespace topology_mode

// ---------------------------------------------------------------------------------------------
// Conditions (`when`) of dependencies and overrides.

struct StringMatchSpec {
  std::string equals{};
  std::vector<std::string> in{};
  std::vector<std::string> notIn{};
  bool operator==(const StringMatchSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(StringMatchSpec, (), (equals, in, notIn))

struct IntMatchSpec {
  std::optional<std::int64_t> equals{};
  std::optional<std::int64_t> greaterThan{};
  std::optional<std::int64_t> lessThan{};
  bool operator==(const IntMatchSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(IntMatchSpec, (), (equals, greaterThan, lessThan))

struct TopologyMatchSpec {
  std::string mode{};  // topology_mode::*
  std::optional<IntMatchSpec> domainCount{};
  bool operator==(const TopologyMatchSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(TopologyMatchSpec, (), (mode, domainCount))

// Every set matcher must hold; an empty WhenSpec always matches. `config` is schemaless JSON
// matched against validation.performance.config; `expression` is CEL over gpuArchitecture,
// platform, workloadKind, topology and config.
struct WhenSpec {
  std::optional<StringMatchSpec> gpuArchitecture{};
  std::optional<StringMatchSpec> platform{};
  std::string workloadKind{};
  std::optional<TopologyMatchSpec> topology{};
  boost::json::value config{};  // raw; null == absent
  std::string expression{};
  bool operator==(const WhenSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(WhenSpec, (),
                      (gpuArchitecture, platform, workloadKind, topology, config, expression))

// An arbitrary embedded Kubernetes object (apiVersion/kind/metadata/...), kept exactly as given,
// plus the sibling key `when` in the same JSON object. The JSON codec mirrors upstream's custom
// Go codec: decoding strips `when` out of the object into `when`; encoding merges `when` back in
// (as the last key), leaving it out when it is empty (WhenSpec{} == "always").
struct DependencySpec {
  boost::json::object resource{};
  WhenSpec when{};
  bool operator==(const DependencySpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(DependencySpec, (), (resource, when))
void decode_json(const boost::json::value& in, DependencySpec& out, DecodeContext& ctx);
boost::json::value encode_json(const DependencySpec& in);

// ---------------------------------------------------------------------------------------------
// Orchestration.

struct TopologySpec {
  std::string topologyKey{};
  bool strictDomain = false;

  static constexpr std::string_view json_always_encoded[] = {"topologyKey"};
  bool operator==(const TopologySpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(TopologySpec, (), (topologyKey, strictDomain))

struct DiagnoseSpec {
  std::optional<std::int64_t> minGroupSize{};  // default 2
  std::string topologyKey{};                   // empty: chunks of ceil(sqrt(N))
  bool operator==(const DiagnoseSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(DiagnoseSpec, (), (minGroupSize, topologyKey))

struct ExecutionSpec {
  std::optional<std::int64_t> maxConcurrent{};  // 0 == unlimited
  std::string timeoutPerJob{};                  // Go duration
  std::optional<std::int64_t> retryFailedGroups{};
  bool operator==(const ExecutionSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(ExecutionSpec, (), (maxConcurrent, timeoutPerJob, retryFailedGroups))

// `execution` is a Go struct value, so it is always written (`"execution": {}`), as upstream does.
struct OrchestrationSpec {
  std::optional<TargetSpec> target{};  // absent: all cluster nodes
  std::optional<TopologySpec> topology{};
  std::optional<DiagnoseSpec> diagnose{};
  ExecutionSpec execution{};
  std::optional<std::int64_t> iterations{};  // default 1
  // "" or Pinned: each Job pinned to its group's nodes; Unpinned: one Job of the requested size,
  // placed by the scheduler. Empty is never defaulted, so Workflows without it stay byte-identical.
  std::string placement{};
  bool operator==(const OrchestrationSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(OrchestrationSpec, (),
                      (target, topology, diagnose, execution, iterations, placement))

// Set members replace the base value; absent ones keep it.
struct OrchestrationOverrideSpec {
  std::optional<TargetSpec> target{};
  std::optional<TopologySpec> topology{};
  std::optional<ExecutionSpec> execution{};
  std::optional<std::int64_t> iterations{};
  bool operator==(const OrchestrationOverrideSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(OrchestrationOverrideSpec, (), (target, topology, execution, iterations))

// A conditional patch: `jobTemplate` is a strategic-merge patch and `jobTemplatePatch` an RFC 6902
// op list, both schemaless and kept raw (null == absent).
struct OverrideSpec {
  WhenSpec when{};
  boost::json::value jobTemplate{};
  boost::json::value jobTemplatePatch{};
  std::vector<DependencySpec> dependencies{};
  std::optional<OrchestrationOverrideSpec> orchestration{};
  bool operator==(const OverrideSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(OverrideSpec, (),
                      (when, jobTemplate, jobTemplatePatch, dependencies, orchestration))

// ---------------------------------------------------------------------------------------------
// Validation.

struct TrackingSpec {
  bool perNode = false;
  bool perDomain = false;
  bool operator==(const TrackingSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(TrackingSpec, (), (perNode, perDomain))

struct ThresholdSpec {
  std::map<std::string, std::string> thresholds{};  // metric -> CEL over `value`
  bool operator==(const ThresholdSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(ThresholdSpec, (), (thresholds))

// `enabled` has no omitempty upstream, so it is always written; `tracking` is a Go struct value,
// also always written.
struct PerformanceValidationSpec {
  bool enabled = false;
  std::string plugin{};
  boost::json::value config{};  // raw; null == absent
  TrackingSpec tracking{};
  std::optional<ThresholdSpec> thresholds{};
  std::string measurementTimeout{};  // Go duration

  static constexpr std::string_view json_always_encoded[] = {"enabled"};
  bool operator==(const PerformanceValidationSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(PerformanceValidationSpec, (),
                      (enabled, plugin, config, tracking, thresholds, measurementTimeout))

struct ValidationSpec {
  std::optional<PerformanceValidationSpec> performance{};
  bool operator==(const ValidationSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(ValidationSpec, (), (performance))

// ---------------------------------------------------------------------------------------------
// Spec.

// Labels/annotations of `metadata` are copied onto every Job. Absent metadata stays absent.
struct JobTemplateSpec {
  std::optional<ObjectMeta> metadata{};
  JobSpec spec{};
  bool operator==(const JobTemplateSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(JobTemplateSpec, (), (metadata, spec))

struct WorkflowSpec {
  std::string namespace_{};
  JobTemplateSpec jobTemplate{};
  OrchestrationSpec orchestration{};
  std::vector<DependencySpec> dependencies{};
  std::vector<OverrideSpec> overrides{};
  std::optional<ValidationSpec> validation{};
  std::optional<GangSchedulerSpec> gangScheduler{};  // resolved values (defaults filled)
  bool operator==(const WorkflowSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkflowSpec, (),
                      (namespace_, jobTemplate, orchestration, dependencies, overrides, validation,
                       gangScheduler))

// ---------------------------------------------------------------------------------------------
// Status.

struct DependencyResourceRef {
  std::string apiVersion{};
  std::string kind{};
  std::string name{};
  std::string namespace_{};                 // empty for cluster-scoped resources
  std::string scope{};                      // dependency_scope::*
  std::string groupName{};                  // scope job
  std::optional<std::int64_t> iteration{};  // scope job

  static constexpr std::string_view json_always_encoded[] = {"apiVersion", "kind", "name"};
  bool operator==(const DependencyResourceRef&) const = default;
};
BOOST_DESCRIBE_STRUCT(DependencyResourceRef, (),
                      (apiVersion, kind, name, namespace_, scope, groupName, iteration))

struct GroupIterationResult {
  std::string name{};
  std::string phase{};  // group_phase::kSucceeded / kFailed
  std::string jobName{};
  std::string startTime{};
  std::string completionTime{};

  static constexpr std::string_view json_always_encoded[] = {"name", "phase"};
  bool operator==(const GroupIterationResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(GroupIterationResult, (), (name, phase, jobName, startTime, completionTime))

struct IterationResult {
  std::int64_t iteration = 0;  // 1-based
  std::vector<GroupIterationResult> groups{};

  static constexpr std::string_view json_always_encoded[] = {"groups"};
  bool operator==(const IterationResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(IterationResult, (), (iteration, groups))

struct AppliedOverride {
  std::int64_t index = 0;  // position in spec.overrides
  std::string when{};      // summary of the matched conditions
  std::string patches{};   // summary of what it changes
  bool noOp = false;

  static constexpr std::string_view json_always_encoded[] = {"when", "patches"};
  bool operator==(const AppliedOverride&) const = default;
};
BOOST_DESCRIBE_STRUCT(AppliedOverride, (), (index, when, patches, noOp))

struct DomainScreeningResult {
  std::vector<std::string> nodes{};
  bool passed = false;

  static constexpr std::string_view json_always_encoded[] = {"nodes", "passed"};
  bool operator==(const DomainScreeningResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(DomainScreeningResult, (), (nodes, passed))

struct InfrastructureFault {
  std::string domain{};
  std::vector<std::string> groupA{};
  std::vector<std::string> groupB{};
  std::string stage{};

  static constexpr std::string_view json_always_encoded[] = {"domain", "groupA", "groupB", "stage"};
  bool operator==(const InfrastructureFault&) const = default;
};
BOOST_DESCRIBE_STRUCT(InfrastructureFault, (), (domain, groupA, groupB, stage))

struct CrossBoundaryProbe {
  std::string domain{};
  std::vector<std::string> halfA{};
  std::vector<std::string> halfB{};
  std::int64_t probeRound = 0;

  static constexpr std::string_view json_always_encoded[] = {"domain", "halfA", "halfB"};
  bool operator==(const CrossBoundaryProbe&) const = default;
};
BOOST_DESCRIBE_STRUCT(CrossBoundaryProbe, (), (domain, halfA, halfB, probeRound))

struct CrossBoundaryState {
  std::vector<CrossBoundaryProbe> pendingProbes{};
  std::string originStage{};

  static constexpr std::string_view json_always_encoded[] = {"originStage"};
  bool operator==(const CrossBoundaryState&) const = default;
};
BOOST_DESCRIBE_STRUCT(CrossBoundaryState, (), (pendingProbes, originStage))

struct DiagnoseStatus {
  std::string stage{};  // diagnose_stage::*
  std::int64_t round = 0;
  std::vector<std::string> healthyNodes{};
  std::vector<std::string> suspectNodes{};
  std::vector<std::string> noNVLSuspectNodes{};
  std::vector<std::string> representativeNodes{};
  std::map<std::string, DomainScreeningResult> screeningResults{};
  std::map<std::string, DomainScreeningResult> noNVLScreeningResults{};
  std::vector<InfrastructureFault> infrastructureFaults{};
  std::optional<CrossBoundaryState> crossBoundaryState{};

  static constexpr std::string_view json_always_encoded[] = {"stage"};
  bool operator==(const DiagnoseStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(DiagnoseStatus, (),
                      (stage, round, healthyNodes, suspectNodes, noNVLSuspectNodes,
                       representativeNodes, screeningResults, noNVLScreeningResults,
                       infrastructureFaults, crossBoundaryState))

struct GroupStatus {
  std::string name{};  // group-0, group-1-overflow, ...
  std::vector<std::string> nodes{};
  std::vector<std::string> domains{};
  std::map<std::string, std::int64_t> domainNodeCounts{};
  bool overflow = false;
  std::string phase{};  // group_phase::*
  std::optional<std::int64_t> retries{};
  std::optional<WorkloadReference> jobRef{};
  std::string startTime{};
  std::string completionTime{};

  static constexpr std::string_view json_always_encoded[] = {"name", "nodes", "phase"};
  bool operator==(const GroupStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(GroupStatus, (),
                      (name, nodes, domains, domainNodeCounts, overflow, phase, retries, jobRef,
                       startTime, completionTime))

struct OrchestrationStatus {
  std::int64_t totalNodes = 0;
  std::int64_t nodesPerJob = 0;
  std::int64_t totalGroups = 0;
  std::optional<std::int64_t> currentIteration{};  // 1-based
  std::optional<std::int64_t> completedIterations{};
  std::vector<IterationResult> iterationHistory{};  // the final iteration stays in `groups`
  std::string detectedPlatform{};
  std::string detectedGPUArchitecture{};
  std::vector<std::string> excludedNodes{};
  std::string exclusionReason{};
  std::vector<AppliedOverride> appliedOverrides{};
  std::optional<DiagnoseStatus> diagnose{};
  std::vector<GroupStatus> groups{};
  bool operator==(const OrchestrationStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(OrchestrationStatus, (),
                      (totalNodes, nodesPerJob, totalGroups, currentIteration, completedIterations,
                       iterationHistory, detectedPlatform, detectedGPUArchitecture, excludedNodes,
                       exclusionReason, appliedOverrides, diagnose, groups))

// Measured numbers are decimal strings.
struct IterationMetrics {
  std::int64_t iterationNumber = 0;  // 1-based
  std::string tflops{};
  std::string duration{};  // seconds
  std::string memoryUsedGB{};
  std::string status{};  // group_phase::kSucceeded / kFailed

  static constexpr std::string_view json_always_encoded[] = {"status"};
  bool operator==(const IterationMetrics&) const = default;
};
BOOST_DESCRIBE_STRUCT(IterationMetrics, (),
                      (iterationNumber, tflops, duration, memoryUsedGB, status))

struct NodeResult {
  std::string domain{};
  std::string group{};
  std::string status{};  // node_result_status::*
  std::vector<IterationMetrics> iterations{};

  static constexpr std::string_view json_always_encoded[] = {"domain", "group", "status"};
  bool operator==(const NodeResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(NodeResult, (), (domain, group, status, iterations))

struct DomainResult {
  std::int64_t nodeCount = 0;
  std::string status{};  // node_result_status::*
  std::string averageTflops{};

  static constexpr std::string_view json_always_encoded[] = {"status"};
  bool operator==(const DomainResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(DomainResult, (), (nodeCount, status, averageTflops))

struct WorkflowStatus {
  std::vector<Condition> conditions{};
  std::string namespace_{};
  std::optional<TypedLocalObjectReference> succeededNodesRef{};
  std::optional<TypedLocalObjectReference> failedNodesRef{};
  std::vector<DependencyResourceRef> dependencyRefs{};  // creation (topological) order
  std::optional<OrchestrationStatus> orchestration{};
  std::map<std::string, NodeResult> nodeResults{};      // tracking.perNode
  std::map<std::string, DomainResult> domainResults{};  // tracking.perDomain
  bool operator==(const WorkflowStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkflowStatus, (),
                      (conditions, namespace_, succeededNodesRef, failedNodesRef, dependencyRefs,
                       orchestration, nodeResults, domainResults))

struct Workflow {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  WorkflowSpec spec{};
  std::optional<WorkflowStatus> status{};

  static constexpr std::string_view kKind = "Workflow";
  bool operator==(const Workflow&) const = default;
};
BOOST_DESCRIBE_STRUCT(Workflow, (), (apiVersion, kind, metadata, spec, status))

}  // namespace nvcre::api
