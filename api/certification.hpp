#pragma once
// Certification (nvcre.nvidia.com/v1alpha1): runs a list of catalog categories over a node pool,
// sequentially, one Workflow per category.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/meta.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// Condition reasons of the Certification tier; inactive execution conditions use
// inactive_reason::kNotApplicable.
namespace certification_reason {
inline constexpr std::string_view kWaitingForNodes = "WaitingForNodes";
inline constexpr std::string_view kWorkflowCreated = "WorkflowCreated";
inline constexpr std::string_view kWorkflowRunning = "WorkflowRunning";
inline constexpr std::string_view kAllWorkflowsSucceeded = "AllWorkflowsSucceeded";
inline constexpr std::string_view kWorkflowSucceeded = "WorkflowSucceeded";
inline constexpr std::string_view kWorkflowFailed = "WorkflowFailed";
inline constexpr std::string_view kWorkflowValidationFailed = "WorkflowValidationFailed";
inline constexpr std::string_view kCategoryNotFound = "CategoryNotFound";
inline constexpr std::string_view kBuildFailed = "BuildFailed";
inline constexpr std::string_view kWorkflowDeleted = "WorkflowDeleted";
inline constexpr std::string_view kThresholdViolation = "ThresholdViolation";
inline constexpr std::string_view kWorkflowNameCollision = "WorkflowNameCollision";
}  // namespace certification_reason

// Events of the Certification controller.
namespace certification_event {
inline constexpr std::string_view kWorkflowCreationError = "WorkflowCreationError";      // Warning
inline constexpr std::string_view kNICResourceDetection = "NICResourceDetection";        // Normal
inline constexpr std::string_view kGKENetworkDetection = "GKENetworkDetection";          // Warning
inline constexpr std::string_view kTCPXOPluginDetection = "TCPXOPluginDetection";        // Warning
inline constexpr std::string_view kGPUArchitectureDefaults = "GPUArchitectureDefaults";  // Warning
}  // namespace certification_event

// CertificationCategoryStatus.status.
namespace category_phase {
inline constexpr std::string_view kPending = "Pending";
inline constexpr std::string_view kInProgress = "InProgress";
inline constexpr std::string_view kSucceeded = "Succeeded";
inline constexpr std::string_view kFailed = "Failed";
}  // namespace category_phase

// CategoryOptions.rdmaDeviceAccess.
namespace rdma_device_access {
inline constexpr std::string_view kHostPath = "hostPath";
inline constexpr std::string_view kDevicePlugin = "devicePlugin";
}  // namespace rdma_device_access

// One side (limits or requests) of CategoryResources; quantities are int-or-string.
struct CategoryResourceList {
  std::optional<Quantity> cpu{};
  std::optional<Quantity> memory{};
  bool operator==(const CategoryResourceList&) const = default;
};
BOOST_DESCRIBE_STRUCT(CategoryResourceList, (), (cpu, memory))

struct CategoryResources {
  std::optional<CategoryResourceList> limits{};
  std::optional<CategoryResourceList> requests{};
  bool operator==(const CategoryResources&) const = default;
};
BOOST_DESCRIBE_STRUCT(CategoryResources, (), (limits, requests))

// Options of catalog workloads, global (inlined at spec level) and per category. Absent means
// "use the global value" (or the catalog/auto default); the merge is the controller's business.
struct CategoryOptions {
  std::optional<std::int32_t> nodesPerJob{};
  std::optional<bool> enableCheckpoint{};
  std::optional<std::int32_t> maxSteps{};
  std::optional<std::int32_t> exitDurationMins{};
  std::optional<std::int32_t> startupStallTimeoutSeconds{};
  std::optional<std::int32_t> gpusPerNode{};
  std::optional<std::int32_t> mlnxPerNode{};  // 0 == opt out of NIC requests
  std::optional<std::string> nicResourceName{};
  std::string rdmaDeviceAccess{};  // rdma_device_access::*
  std::optional<CategoryResources> resources{};
  std::optional<bool> enableMNNVL{};  // absent: by GPU architecture
  std::string image{};
  std::vector<LocalObjectReference> imagePullSecrets{};
  std::optional<std::string> storageClassName{};
  std::optional<std::int32_t> saveInterval{};
  std::optional<std::int32_t> saveRetainInterval{};
  std::optional<std::int32_t> saveTopK{};
  std::string storageSize{};
  std::optional<std::int32_t> maxRestarts{};
  std::optional<std::int32_t> repeatCount{};
  std::string testScale{};  // test_scale::*
  std::string maxBytes{};
  std::optional<std::int32_t> numIterations{};
  std::optional<std::int32_t> numCycles{};
  std::map<std::string, std::string> thresholds{};
  std::optional<std::int32_t> maxConcurrent{};
  std::optional<std::int32_t> minGroupSize{};
  std::string timeoutPerJob{};       // ^([0-9]+(h|m|s|ms))+$
  std::string measurementTimeout{};  // same pattern
  std::string sourceRepo{};
  std::optional<WorkloadMetadata> workloadMetadata{};  // merged per key, unlike the rest
  bool operator==(const CategoryOptions&) const = default;
};
BOOST_DESCRIBE_STRUCT(CategoryOptions, (),
                      (nodesPerJob, enableCheckpoint, maxSteps, exitDurationMins,
                       startupStallTimeoutSeconds, gpusPerNode, mlnxPerNode, nicResourceName,
                       rdmaDeviceAccess, resources, enableMNNVL, image, imagePullSecrets,
                       storageClassName, saveInterval, saveRetainInterval, saveTopK, storageSize,
                       maxRestarts, repeatCount, testScale, maxBytes, numIterations, numCycles,
                       thresholds, maxConcurrent, minGroupSize, timeoutPerJob, measurementTimeout,
                       sourceRepo, workloadMetadata))

struct CertificateCategory {
  std::string domain{};   // communication, training, diagnostics, compute, ...
  std::string variant{};  // nccl-all-reduce, nemotron5-8b, dcgm-level4, ...
  std::optional<CategoryOptions> options{};

  static constexpr std::string_view json_always_encoded[] = {"domain", "variant"};
  bool operator==(const CertificateCategory&) const = default;
};
BOOST_DESCRIBE_STRUCT(CertificateCategory, (), (domain, variant, options))

// In JSON the global CategoryOptions sit inline at spec level, next to target / categories /
// gangScheduler (Go's `json:",inline"`); here they are the member `options`. The custom codec
// decodes the three own keys into their members and every other key into `options`, so an unknown
// key is reported once, at its spec-level path; encoding writes the own keys, then the options.
struct CertificationSpec {
  TargetSpec target{};
  std::vector<CertificateCategory> categories{};
  std::optional<GangSchedulerSpec> gangScheduler{};
  CategoryOptions options{};
  bool operator==(const CertificationSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(CertificationSpec, (), (target, categories, gangScheduler, options))
void decode_json(const boost::json::value& in, CertificationSpec& out, DecodeContext& ctx);
boost::json::value encode_json(const CertificationSpec& in);

struct CertificationCategoryStatus {
  std::string domain{};
  std::string variant{};
  std::optional<WorkflowReference> workflowRef{};
  std::string status{};  // category_phase::*
  std::optional<TypedLocalObjectReference> succeededNodesRef{};
  std::optional<TypedLocalObjectReference> failedNodesRef{};

  static constexpr std::string_view json_always_encoded[] = {"domain", "variant", "status"};
  bool operator==(const CertificationCategoryStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(CertificationCategoryStatus, (),
                      (domain, variant, workflowRef, status, succeededNodesRef, failedNodesRef))

struct CertificationStatus {
  std::vector<Condition> conditions{};
  std::vector<CertificationCategoryStatus> categoryStatuses{};  // one per spec category, same order
  bool operator==(const CertificationStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(CertificationStatus, (), (conditions, categoryStatuses))

struct Certification {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  CertificationSpec spec{};
  std::optional<CertificationStatus> status{};

  static constexpr std::string_view kKind = "Certification";
  bool operator==(const Certification&) const = default;
};
BOOST_DESCRIBE_STRUCT(Certification, (), (apiVersion, kind, metadata, spec, status))

}  // namespace nvcre::api
