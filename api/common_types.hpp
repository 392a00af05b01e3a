#pragma once
// Nested types shared by several nvcre.nvidia.com/v1alpha1 kinds, the
// handful of core/v1 and meta/v1 types they embed, and the shared condition vocabulary.
//
// Conventions of the whole typed model (api/*.hpp):
//   - member name == JSON name (a trailing '_' dodges C++ keywords: namespace_, operator_,
//   inline_);
//   - required fields are plain members; optional Go pointers and optional numbers are
//     std::optional (Go int -> std::int64_t, int32 -> std::int32_t); optional strings are plain
//     std::string (empty == absent, as Go's omitempty) unless Go has a *string, where "" is a
//     value;
//   - members Go writes without `omitempty` are listed in `json_always_encoded`;
//   - metav1.Time and metav1.Duration are strings (RFC 3339 / Go duration syntax);
//   - enum-valued fields are strings (the CRD schema validator owns enums); the values are the
//     constants in the namespaces below and in each kind's header;
//   - parts the API keeps schemaless or that belong to other APIs (core Volume, Container, ...) are
//     boost::json values, preserved exactly;
//   - every member has an initializer, so designated initializers that leave members out
//     (`Condition{.type = ..., .status = ...}`) compile cleanly under -Wextra -Werror.
#include "api/codec.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nvcre::api {

// ---------------------------------------------------------------------------------------------
// Condition vocabulary shared by Certification, WorkloadRun, Workflow and Job.

namespace condition_type {
inline constexpr std::string_view kInProgress = "InProgress";
inline constexpr std::string_view kSucceeded = "Succeeded";
inline constexpr std::string_view kFailed = "Failed";
inline constexpr std::string_view kValidationFailed = "ValidationFailed";
inline constexpr std::string_view kHardwareFailed = "HardwareFailed";  // Job only
}  // namespace condition_type

namespace condition_status {
inline constexpr std::string_view kTrue = "True";
inline constexpr std::string_view kFalse = "False";
inline constexpr std::string_view kUnknown = "Unknown";
}  // namespace condition_status

// Reasons written on the two inactive execution conditions.
namespace inactive_reason {
inline constexpr std::string_view kNotApplicable = "NotApplicable";  // Certification, Workflow, Job
inline constexpr std::string_view kSuperseded = "Superseded";        // WorkloadRun
}  // namespace inactive_reason

// CategoryOptions.testScale / WorkloadOrchestration.testScale (the latter without diagnose).
namespace test_scale {
inline constexpr std::string_view kIntraNode = "intra-node";
inline constexpr std::string_view kIntraRack = "intra-rack";
inline constexpr std::string_view kDiagnose = "diagnose";
inline constexpr std::string_view kFullScale = "full-scale";
}  // namespace test_scale

// FailedNode.reason (NodeFailureReason).
namespace node_failure_reason {
inline constexpr std::string_view kHardwareFailureDetected = "HardwareFailureDetected";
inline constexpr std::string_view kThresholdViolation = "ThresholdViolation";
inline constexpr std::string_view kWorkloadFailed = "WorkloadFailed";
}  // namespace node_failure_reason

// TaintSelector.effect (core TaintEffect).
namespace taint_effect {
inline constexpr std::string_view kNoSchedule = "NoSchedule";
inline constexpr std::string_view kPreferNoSchedule = "PreferNoSchedule";
inline constexpr std::string_view kNoExecute = "NoExecute";
}  // namespace taint_effect

// NodeSelectorRequirement.operator.
namespace node_selector_operator {
inline constexpr std::string_view kIn = "In";
inline constexpr std::string_view kNotIn = "NotIn";
inline constexpr std::string_view kExists = "Exists";
inline constexpr std::string_view kDoesNotExist = "DoesNotExist";
inline constexpr std::string_view kGt = "Gt";
inline constexpr std::string_view kLt = "Lt";
}  // namespace node_selector_operator

// ---------------------------------------------------------------------------------------------
// meta/v1 and core/v1 types.

// metav1.Condition.
struct Condition {
  std::string type{};
  std::string status{};
  std::optional<std::int64_t> observedGeneration{};
  std::string lastTransitionTime{};
  std::string reason{};
  std::string message{};

  static constexpr std::string_view json_always_encoded[] = {"type", "status", "lastTransitionTime",
                                                             "reason", "message"};
  bool operator==(const Condition&) const = default;
};
BOOST_DESCRIBE_STRUCT(Condition, (),
                      (type, status, observedGeneration, lastTransitionTime, reason, message))

// An int-or-string value (x-kubernetes-int-or-string), as resource.Quantity fields are in our CRDs:
// `cpu: 16` and `cpu: "16"` both decode, and each encodes back the way it came.
struct IntOrString {
  std::variant<std::string, std::int64_t> value{};

  IntOrString() = default;
  template <std::integral I>
  requires(!std::same_as<I, bool>) IntOrString(I number)
      : value(static_cast<std::int64_t>(number)) {}
  IntOrString(std::string text) : value(std::move(text)) {}
  IntOrString(const char* text) : value(std::string(text)) {}

  bool is_int() const { return std::holds_alternative<std::int64_t>(value); }
  bool is_string() const { return std::holds_alternative<std::string>(value); }
  std::int64_t as_int() const { return std::get<std::int64_t>(value); }
  const std::string& as_string() const { return std::get<std::string>(value); }
  // The textual form either way ("16", "1500m"), e.g. for quantity parsing.
  std::string to_string() const { return is_int() ? std::to_string(as_int()) : as_string(); }

  bool operator==(const IntOrString&) const = default;
};
BOOST_DESCRIBE_STRUCT(IntOrString, (), (value))
void decode_json(const boost::json::value& in, IntOrString& out, DecodeContext& ctx);
boost::json::value encode_json(const IntOrString& in);

using Quantity = IntOrString;

// core LocalObjectReference.
struct LocalObjectReference {
  std::string name{};
  bool operator==(const LocalObjectReference&) const = default;
};
BOOST_DESCRIBE_STRUCT(LocalObjectReference, (), (name))

// core TypedLocalObjectReference; node-result refs are {kind: ConfigMap, name} without apiGroup.
struct TypedLocalObjectReference {
  std::optional<std::string> apiGroup{};
  std::string kind{};
  std::string name{};

  static constexpr std::string_view json_always_encoded[] = {"kind", "name"};
  bool operator==(const TypedLocalObjectReference&) const = default;
};
BOOST_DESCRIBE_STRUCT(TypedLocalObjectReference, (), (apiGroup, kind, name))

// core NodeSelectorRequirement.
struct NodeSelectorRequirement {
  std::string key{};
  std::string operator_{};
  std::vector<std::string> values{};

  static constexpr std::string_view json_always_encoded[] = {"key", "operator"};
  bool operator==(const NodeSelectorRequirement&) const = default;
};
BOOST_DESCRIBE_STRUCT(NodeSelectorRequirement, (), (key, operator_, values))

// core EnvVar; valueFrom (secret/configMap/field/resource refs) is kept raw.
struct EnvVar {
  std::string name{};
  std::string value{};
  boost::json::object valueFrom{};

  static constexpr std::string_view json_always_encoded[] = {"name"};
  bool operator==(const EnvVar&) const = default;
};
BOOST_DESCRIBE_STRUCT(EnvVar, (), (name, value, valueFrom))

// core ResourceClaim (ResourceRequirements.claims entry).
struct ResourceClaim {
  std::string name{};
  std::string request{};

  static constexpr std::string_view json_always_encoded[] = {"name"};
  bool operator==(const ResourceClaim&) const = default;
};
BOOST_DESCRIBE_STRUCT(ResourceClaim, (), (name, request))

// core ResourceRequirements.
struct ResourceRequirements {
  std::map<std::string, Quantity> limits{};
  std::map<std::string, Quantity> requests{};
  std::vector<ResourceClaim> claims{};
  bool operator==(const ResourceRequirements&) const = default;
};
BOOST_DESCRIBE_STRUCT(ResourceRequirements, (), (limits, requests, claims))

// ---------------------------------------------------------------------------------------------
// nvcre shared nested types.

// A node must carry every listed taint; empty value/effect match any.
struct TaintSelector {
  std::string key{};
  std::string value{};
  std::string effect{};

  static constexpr std::string_view json_always_encoded[] = {"key"};
  bool operator==(const TaintSelector&) const = default;
};
BOOST_DESCRIBE_STRUCT(TaintSelector, (), (key, value, effect))

// Which nodes a Certification / WorkloadRun / Workflow runs on.
struct TargetSpec {
  std::map<std::string, std::string> nodeSelector{};
  std::vector<NodeSelectorRequirement> matchExpressions{};
  std::vector<std::string> nodeNames{};
  std::vector<TaintSelector> taintSelectors{};
  bool operator==(const TargetSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(TargetSpec, (), (nodeSelector, matchExpressions, nodeNames, taintSelectors))

// Queue / queueLabelKey defaults (`default-queue`, `kai.scheduler/queue`) are applied by the
// controller, not here.
struct GangSchedulerSpec {
  std::string schedulerName{};
  std::string queue{};
  std::string queueLabelKey{};

  static constexpr std::string_view json_always_encoded[] = {"schedulerName"};
  bool operator==(const GangSchedulerSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(GangSchedulerSpec, (), (schedulerName, queue, queueLabelKey))

inline constexpr std::string_view kDefaultGangQueue = "default-queue";
inline constexpr std::string_view kDefaultGangQueueLabelKey = "kai.scheduler/queue";

// Labels for the workload object (TrainJob) only; an empty value is a real label value.
struct WorkloadMetadata {
  std::map<std::string, std::string> labels{};
  bool operator==(const WorkloadMetadata&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadMetadata, (), (labels))

// SampleInterval is a Go duration string (default 60s, applied by the controller).
struct GoodputMeasurementConfig {
  std::string logProfileRef{};
  std::string sampleInterval{};

  static constexpr std::string_view json_always_encoded[] = {"logProfileRef"};
  bool operator==(const GoodputMeasurementConfig&) const = default;
};
BOOST_DESCRIBE_STRUCT(GoodputMeasurementConfig, (), (logProfileRef, sampleInterval))

struct BandwidthMeasurementConfig {
  std::string logProfileRef{};
  std::string sampleInterval{};
  std::string testType{};

  static constexpr std::string_view json_always_encoded[] = {"logProfileRef"};
  bool operator==(const BandwidthMeasurementConfig&) const = default;
};
BOOST_DESCRIBE_STRUCT(BandwidthMeasurementConfig, (), (logProfileRef, sampleInterval, testType))

struct WorkflowReference {
  std::string name{};
  std::string namespace_{};

  static constexpr std::string_view json_always_encoded[] = {"name"};
  bool operator==(const WorkflowReference&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkflowReference, (), (name, namespace_))

// A Job's workload (TrainJob), and a Workflow group's Job.
struct WorkloadReference {
  std::string apiVersion{};
  std::string kind{};
  std::string name{};
  std::string namespace_{};

  static constexpr std::string_view json_always_encoded[] = {"apiVersion", "kind", "name"};
  bool operator==(const WorkloadReference&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkloadReference, (), (apiVersion, kind, name, namespace_))

// Lists are keyed by (name, reason).
struct FailedNode {
  std::string name{};
  std::string reason{};  // node_failure_reason::*
  std::string message{};

  static constexpr std::string_view json_always_encoded[] = {"name", "reason"};
  bool operator==(const FailedNode&) const = default;
};
BOOST_DESCRIBE_STRUCT(FailedNode, (), (name, reason, message))

}  // namespace nvcre::api
