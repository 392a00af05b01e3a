#pragma once
// Job (nvcre.nvidia.com/v1alpha1): runs one workload (a Kubeflow TrainJob), watches node health,
// creates measurement children, evaluates thresholds, restarts from checkpoints.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/meta.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// Condition reasons of the Job tier; inactive execution conditions use
// inactive_reason::kNotApplicable.
namespace job_reason {
// InProgress
inline constexpr std::string_view kWorkloadCreated = "WorkloadCreated";
inline constexpr std::string_view kWorkloadAdopted = "WorkloadAdopted";
inline constexpr std::string_view kWorkloadPending = "WorkloadPending";
inline constexpr std::string_view kWorkloadRunning = "WorkloadRunning";
inline constexpr std::string_view kWorkloadSchedulingBlocked = "WorkloadSchedulingBlocked";
inline constexpr std::string_view kWorkloadRestarting = "WorkloadRestarting";
// Succeeded
inline constexpr std::string_view kWorkloadCompleted = "WorkloadCompleted";
// Failed
inline constexpr std::string_view kWorkloadFailed = "WorkloadFailed";
inline constexpr std::string_view kWorkloadStalled = "WorkloadStalled";
inline constexpr std::string_view kWorkloadCreationError = "WorkloadCreationError";
inline constexpr std::string_view kJobTimedOut =
    "JobTimedOut";  // written by the Workflow controller
// HardwareFailed
inline constexpr std::string_view kHardwareFailureDetected = "HardwareFailureDetected";
// ValidationFailed
inline constexpr std::string_view kThresholdsMet = "ThresholdsMet";  // status False
inline constexpr std::string_view kThresholdViolated = "ThresholdViolated";
inline constexpr std::string_view kMeasurementTimeout = "MeasurementTimeout";
inline constexpr std::string_view kUnknownThresholdKey = "UnknownThresholdKey";
inline constexpr std::string_view kInvalidThresholdExpression = "InvalidThresholdExpression";
}  // namespace job_reason

// Warning events of the Job controller.
namespace job_event {
inline constexpr std::string_view kWorkloadCreationError = "WorkloadCreationError";
inline constexpr std::string_view kMeasurementCreationError = "MeasurementCreationError";
}  // namespace job_event

// Exactly one member set (CRD: minProperties/maxProperties 1). The TrainJob spec is Kubeflow
// Trainer's TrainJobSpec, kept raw and exact: we do not re-model another project's API.
struct WorkloadSpec {
  std::optional<boost::json::object> trainJob{};
  bool operator==(const WorkloadSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadSpec, (), (trainJob))

// CEL over the variable `node` (a full core/v1 Node); true means the node is unhealthy.
struct CELNodeHealthCheck {
  std::string expression{};

  static constexpr std::string_view json_always_encoded[] = {"expression"};
  bool operator==(const CELNodeHealthCheck&) const = default;
};
BOOST_DESCRIBE_STRUCT(CELNodeHealthCheck, (), (expression))

struct NodeHealthMonitor {
  std::optional<CELNodeHealthCheck> cel{};
  bool operator==(const NodeHealthMonitor&) const = default;
};
BOOST_DESCRIBE_STRUCT(NodeHealthMonitor, (), (cel))

inline constexpr std::string_view kDefaultNodeHealthExpression = "node.spec.unschedulable == true";

struct CheckpointConfig {
  std::string pvcName{};
  std::optional<std::int32_t> maxRestarts{};

  static constexpr std::string_view json_always_encoded[] = {"pvcName"};
  bool operator==(const CheckpointConfig&) const = default;
};
BOOST_DESCRIBE_STRUCT(CheckpointConfig, (), (pvcName, maxRestarts))

struct JobSpec {
  WorkloadSpec workload{};
  std::optional<WorkloadMetadata> workloadMetadata{};
  std::optional<NodeHealthMonitor> nodeHealthMonitor{};
  std::optional<CheckpointConfig> checkpoint{};
  std::optional<std::int32_t> stallMultiplier{};
  std::optional<std::int32_t> startupStallTimeoutSeconds{};
  std::optional<std::int32_t> schedulingStallGraceSeconds{};
  std::optional<GoodputMeasurementConfig> goodputMeasurement{};
  std::optional<BandwidthMeasurementConfig> bandwidthMeasurement{};
  std::map<std::string, std::string> thresholds{};
  std::string measurementTimeout{};  // Go duration

  bool operator==(const JobSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(JobSpec, (),
                      (workload, workloadMetadata, nodeHealthMonitor, checkpoint, stallMultiplier,
                       startupStallTimeoutSeconds, schedulingStallGraceSeconds, goodputMeasurement,
                       bandwidthMeasurement, thresholds, measurementTimeout))

// The pod whose failure ended the workload, with the tail (<= 32 KB) of its logs.
struct FailureLog {
  std::string podName{};
  std::string nodeName{};
  std::int32_t exitCode = 0;
  std::string reason{};
  std::string tail{};

  static constexpr std::string_view json_always_encoded[] = {"podName", "nodeName"};
  bool operator==(const FailureLog&) const = default;
};
BOOST_DESCRIBE_STRUCT(FailureLog, (), (podName, nodeName, exitCode, reason, tail))

struct JobStatus {
  std::vector<Condition> conditions{};
  std::vector<FailedNode> failedNodes{};
  std::optional<WorkloadReference> workloadRef{};
  std::string workloadStartTime{};
  std::string schedulingBlockedSince{};
  std::string schedulingResumedTime{};
  std::optional<std::int32_t> restartCount{};
  std::optional<FailureLog> failureLog{};

  bool operator==(const JobStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(JobStatus, (),
                      (conditions, failedNodes, workloadRef, workloadStartTime,
                       schedulingBlockedSince, schedulingResumedTime, restartCount, failureLog))

struct Job {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  JobSpec spec{};
  std::optional<JobStatus> status{};

  static constexpr std::string_view kKind = "Job";
  bool operator==(const Job&) const = default;
};
BOOST_DESCRIBE_STRUCT(Job, (), (apiVersion, kind, metadata, spec, status))

}  // namespace nvcre::api
