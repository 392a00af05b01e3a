#pragma once
// WorkloadRun (nvcre.nvidia.com/v1alpha1): one image + one framework; the controller synthesizes a
// Workflow with a generated TrainingRuntime dependency and platform overrides.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/meta.hpp"
#include "api/workflow.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// Condition reasons of the WorkloadRun tier; inactive execution conditions use
// inactive_reason::kSuperseded.
namespace workloadrun_reason {
inline constexpr std::string_view kWorkflowCreated = "WorkflowCreated";
inline constexpr std::string_view kWorkflowSucceeded = "WorkflowSucceeded";
inline constexpr std::string_view kWorkflowFailed = "WorkflowFailed";
inline constexpr std::string_view kWorkflowValidationFailed = "WorkflowValidationFailed";
inline constexpr std::string_view kWorkflowDeleted = "WorkflowDeleted";
inline constexpr std::string_view kBuildFailed = "BuildFailed";
inline constexpr std::string_view kWorkflowNameCollision = "WorkflowNameCollision";
inline constexpr std::string_view kThresholdViolation = "ThresholdViolation";  // ValidationFailed
}  // namespace workloadrun_reason

// Events of the WorkloadRun controller.
namespace workloadrun_event {
inline constexpr std::string_view kWorkflowCreationError = "WorkflowCreationError";
inline constexpr std::string_view kBuildFailedStatusUpdateFailed = "BuildFailedStatusUpdateFailed";
inline constexpr std::string_view kNICResourceDetection = "NICResourceDetection";
inline constexpr std::string_view kGPUArchitectureDefaults = "GPUArchitectureDefaults";
}  // namespace workloadrun_event

inline constexpr std::string_view kDefaultMpiImplementation = "OpenMPI";

// torchrun: exactly one of script / module (CEL in the CRD).
struct TorchFramework {
  std::string script{};
  std::string module_{};
  std::vector<std::string> args{};
  bool operator==(const TorchFramework&) const = default;
};
BOOST_DESCRIBE_STRUCT(TorchFramework, (), (script, module_, args))

struct MPIFramework {
  std::string binary{};
  std::vector<std::string> args{};
  std::vector<std::string> mpiArgs{};  // extra mpirun arguments
  std::string mpiImplementation{};     // default kDefaultMpiImplementation
  std::string mpirunPath{};

  static constexpr std::string_view json_always_encoded[] = {"binary", "mpirunPath"};
  bool operator==(const MPIFramework&) const = default;
};
BOOST_DESCRIBE_STRUCT(MPIFramework, (), (binary, args, mpiArgs, mpiImplementation, mpirunPath))

struct ExecFramework {
  std::vector<std::string> command{};
  std::vector<std::string> args{};

  static constexpr std::string_view json_always_encoded[] = {"command"};
  bool operator==(const ExecFramework&) const = default;
};
BOOST_DESCRIBE_STRUCT(ExecFramework, (), (command, args))

// Exactly one member set (CRD: minProperties/maxProperties 1).
struct FrameworkSpec {
  std::optional<TorchFramework> torch{};
  std::optional<MPIFramework> mpi{};
  std::optional<ExecFramework> exec{};
  bool operator==(const FrameworkSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(FrameworkSpec, (), (torch, mpi, exec))

// Mounted at /config; inline and configMapRef are mutually exclusive (CEL in the CRD).
struct WorkloadConfig {
  std::map<std::string, std::string> inline_{};  // file name -> content
  std::optional<LocalObjectReference> configMapRef{};
  bool operator==(const WorkloadConfig&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadConfig, (), (inline_, configMapRef))

struct WorkloadRunCheckpoint {
  std::string storageSize{};
  std::optional<std::string> storageClassName{};
  std::optional<std::int32_t> maxRestarts{};

  static constexpr std::string_view json_always_encoded[] = {"storageSize"};
  bool operator==(const WorkloadRunCheckpoint&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadRunCheckpoint, (), (storageSize, storageClassName, maxRestarts))

struct WorkloadOrchestration {
  std::string testScale{};  // test_scale::* except kDiagnose; default full-scale
  std::optional<std::int32_t> repeatCount{};
  std::optional<std::int32_t> maxConcurrent{};
  std::string timeoutPerJob{};  // Go duration, default 1h
  std::string placement{};      // copied to the Workflow's orchestration.placement; "" is Pinned
  bool operator==(const WorkloadOrchestration&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadOrchestration, (),
                      (testScale, repeatCount, maxConcurrent, timeoutPerJob, placement))

// Core Volume, VolumeMount and Container are kept raw (boost::json::object each).
struct WorkloadRunSpec {
  std::optional<TargetSpec> target{};  // absent: nodes labelled nvidia.com/gpu.present=true
  std::string image{};
  FrameworkSpec framework{};
  std::int32_t numNodes = 0;  // nodes per job group
  std::optional<WorkloadConfig> config{};
  std::optional<std::int32_t> gpusPerNode{};
  std::optional<std::int32_t> mlnxPerNode{};  // 0 == opt out of NIC requests
  std::optional<std::string> nicResourceName{};
  std::vector<LocalObjectReference> imagePullSecrets{};
  std::vector<EnvVar> env{};
  std::vector<boost::json::object> volumes{};
  std::vector<boost::json::object> volumeMounts{};
  std::optional<bool> enableMNNVL{};  // absent: by GPU architecture
  std::optional<WorkloadRunCheckpoint> checkpoint{};
  std::optional<ResourceRequirements> resources{};
  std::vector<boost::json::object> initContainers{};
  std::optional<WorkloadOrchestration> orchestration{};
  std::map<std::string, std::string> thresholds{};
  std::optional<GoodputMeasurementConfig> goodputMeasurement{};
  std::optional<BandwidthMeasurementConfig> bandwidthMeasurement{};
  std::vector<OverrideSpec> overrides{};
  std::optional<GangSchedulerSpec> gangScheduler{};
  std::optional<WorkloadMetadata> workloadMetadata{};

  static constexpr std::string_view json_always_encoded[] = {"image"};
  bool operator==(const WorkloadRunSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadRunSpec, (),
                      (target, image, framework, numNodes, config, gpusPerNode, mlnxPerNode,
                       nicResourceName, imagePullSecrets, env, volumes, volumeMounts, enableMNNVL,
                       checkpoint, resources, initContainers, orchestration, thresholds,
                       goodputMeasurement, bandwidthMeasurement, overrides, gangScheduler,
                       workloadMetadata))

struct WorkloadRunStatus {
  std::vector<Condition> conditions{};
  std::optional<WorkflowReference> workflowRef{};
  std::string detectedPlatform{};
  std::string detectedGPUArchitecture{};
  std::optional<std::int32_t> resolvedGpusPerNode{};
  std::optional<TypedLocalObjectReference> succeededNodesRef{};
  std::optional<TypedLocalObjectReference> failedNodesRef{};
  bool operator==(const WorkloadRunStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadRunStatus, (),
                      (conditions, workflowRef, detectedPlatform, detectedGPUArchitecture,
                       resolvedGpusPerNode, succeededNodesRef, failedNodesRef))

struct WorkloadRun {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  WorkloadRunSpec spec{};
  std::optional<WorkloadRunStatus> status{};

  static constexpr std::string_view kKind = "WorkloadRun";
  bool operator==(const WorkloadRun&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadRun, (), (apiVersion, kind, metadata, spec, status))

}  // namespace nvcre::api
