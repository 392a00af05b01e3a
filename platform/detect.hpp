#pragma once
// Platform and GPU-architecture detection from plain core/v1 Node JSON,
// and the synthetic node offline renders detect against. Pure functions: callers pass the nodes
// discovery returned (name-sorted), nothing here talks to an API server.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::platform {

inline constexpr std::string_view kGpuProductLabel = "nvidia.com/gpu.product";
inline constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";
inline constexpr std::string_view kForgeSiteLabel = "nke.nvidia.com/site-name";
inline constexpr std::string_view kTogetherAiWorkerLabel = "node-role.together.ai/worker";
inline constexpr std::string_view kNScaleRdmaShareResource = "nscale.com/rdmashare";

// What a node without a product label, or a node list without any, reports as its architecture.
inline constexpr std::string_view kUnknownArchitecture = "unknown";

// Read-only accessors over a Node document. Missing or mistyped fields read as absent, so a
// half-filled node (a test fixture, a DRA-patched copy) never throws.
class NodeView {
 public:
  explicit NodeView(const boost::json::value& node);

  std::string_view name() const;
  std::string_view provider_id() const;
  // The label's value when present (a present label may have an empty value).
  std::optional<std::string_view> label(std::string_view key) const;
  bool has_label(std::string_view key) const { return label(key).has_value(); }
  // status.allocatable, or nullptr.
  const boost::json::object* allocatable() const;
  bool has_allocatable(std::string_view resource) const;

 private:
  const boost::json::object* node_ = nullptr;
};

// One node's platform: one of platform_names.hpp, never empty (anything unrecognised is onprem).
std::string detect_node_platform(const boost::json::value& node);

// DetectPlatform (Certification, WorkloadRun, CLI): the first node's platform; onprem for none.
std::string detect_platform(std::span<const boost::json::value> nodes);

// detectPlatformConsistent (Workflow, authoritative): every node must agree. On disagreement
// `platform` is empty and `error` reads "heterogeneous platforms detected: map[aws:2 gcp:1]" —
// Go's rendering of the per-platform counts (keys sorted), which ends up in Workflow status.
struct ConsistentPlatform {
  std::string platform;
  std::string error;
  bool ok() const { return error.empty(); }
};
ConsistentPlatform detect_platform_consistent(std::span<const boost::json::value> nodes);

// gpu.ParseProduct: "NVIDIA-H100-80GB-HBM3" -> "h100", "NVIDIA GB300" -> "gb300",
// "NVIDIA-RTX-PRO-6000-..." -> "rtxpro6000", "" -> "". Unknown products still parse (to their
// first word, split at a hyphen or a space, lower-cased).
std::string parse_gpu_product(std::string_view product);

// A node's architecture from its product label; "unknown" when the label is absent or empty.
std::string node_gpu_architecture(const boost::json::value& node);

// Majority vote over the nodes that carry a product label. Ties go to the architecture whose
// first node comes earliest in `nodes` (discovery passes them name-sorted). "" when no node votes.
std::string majority_gpu_architecture(std::span<const boost::json::value> nodes);
// The most common non-empty vote; a tie goes to the one seen first ("" when there is none).
std::string majority_vote(std::span<const std::string> votes);

// detectGPUArchConsistent: the primary architecture (majority, or "unknown") and the nodes that
// match it; the others are reported as arch-excluded. With no labelled node every node is kept.
struct ArchitectureSelection {
  std::string architecture;
  std::vector<std::string> kept;      // node names, input order
  std::vector<std::string> excluded;  // node names, input order
};
ArchitectureSelection select_primary_architecture(std::span<const boost::json::value> nodes);
// The same over votes already read from the nodes (the platform_detector keeps them per node).
struct ArchitectureVote {
  std::string node;
  std::string vote;  // the architecture its product label votes for; "" = it does not vote
};
ArchitectureSelection select_primary_architecture(std::span<const ArchitectureVote> votes);

// Distinct non-empty values of the `topology_key` label over the nodes: the `domainCount` overrides
// match on. 0 for an empty key.
std::int64_t count_topology_domains(std::string_view topology_key,
                                    std::span<const boost::json::value> nodes);

// A provider ID that detect_node_platform maps back to `platform` (with the markers of
// synthetic_node where the prefix alone is not enough). onprem gets an unrecognised scheme; forge
// (recognised by a label) and "" get none. Throws std::invalid_argument for unknown names.
std::string fake_provider_id(std::string_view platform);

// The single node offline renders resolve against: labels = the target's nodeSelector, plus the
// provider ID and whatever marker detection needs for `platform` (TogetherAI worker role label,
// Forge site label, nscale rdmashare allocatable). An empty platform adds nothing.
boost::json::value synthetic_node(const std::map<std::string, std::string>& node_selector,
                                  std::string_view platform);

}  // namespace nvcre::platform
