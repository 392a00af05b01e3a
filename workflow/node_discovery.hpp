#pragma once
// Target-node discovery and the node exclusions the Workflow controller records (with the capacity
// filter): which cached GPU nodes a TargetSpec selects, which of them were dropped as cordoned,
// under-capacity or of a minority architecture, and the sentences that explain it in status, events
// and failure messages. Pure functions over cached Node JSON.
#include "api/labels.hpp"
#include "api/workflow.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

using api::kGpuPresentLabel;
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kUnschedulableTaint = "node.kubernetes.io/unschedulable";

struct DiscoveredNodes {
  std::vector<boost::json::value>
      nodes;                          // name-sorted copies of the selected schedulable GPU nodes
  std::vector<std::string> cordoned;  // name-sorted GPU nodes dropped for spec.unschedulable
};

// discoverTargetNodes over the cache (which holds only gpu.present=true nodes): nodeSelector, then
// every matchExpression (In/NotIn/Exists/DoesNotExist; other operators reject the node), nodeNames,
// taintSelectors (every one must match a taint), the cordon filter (skipped when a taint selector
// names node.kubernetes.io/unschedulable) and the gpu.present=true label.
DiscoveredNodes discover_target_nodes(const k8s::CacheView& cache,
                                      const std::optional<api::TargetSpec>& target);

// The same selection as pointers into `cache` (valid while the cache view is), for callers that
// only read the nodes: copying every selected Node was most of a Certification pass's cost on
// large clusters (aws:h100:800: 7.6 ms with copies, 1 ms without;
// build/bench/nvcre_certification_pass_bench).
struct DiscoveredNodeViews {
  std::vector<const boost::json::value*> nodes;  // name-sorted
  std::vector<std::string> cordoned;             // name-sorted
};
DiscoveredNodeViews discover_target_node_views(const k8s::CacheView& cache,
                                               const std::optional<api::TargetSpec>& target);

// A taint selector names node.kubernetes.io/unschedulable: cordoned nodes are targets, and the
// default node-health monitor is dropped for the run.
bool targets_cordoned_nodes(const std::optional<api::TargetSpec>& target);

// The largest nvidia.com/gpu found in any `requests` / `limits` map of the job template or of any
// dependency (quantity strings or numbers; non-positive reads as 0). 0: no per-node requirement.
std::int64_t workload_gpus_per_node(const api::WorkflowSpec& spec);

struct CapacityExclusion {
  std::string node;
  std::int64_t allocatable = 0;
};

struct CapacityFilter {
  std::vector<boost::json::value> kept;
  std::vector<CapacityExclusion> excluded;
};

// Drops a node only when its allocatable nvidia.com/gpu is an exact integer c with 0 < c < gpus
// (missing or zero allocatable means the device plugin is restarting). gpus <= 0 keeps every node.
CapacityFilter filter_by_gpu_capacity(std::vector<boost::json::value> nodes, std::int64_t gpus);

// "node002 has 1, node003 has 1".
std::string gpu_shortfall_detail(const std::vector<CapacityExclusion>& excluded);

struct ExclusionRecord {
  std::vector<std::string> nodes;
  std::string reason;  // one sentence per cause, joined by ". "
};

ExclusionRecord exclusion_summary(const std::vector<std::string>& cordoned,
                                  const std::vector<std::string>& arch_excluded,
                                  std::string_view architecture,
                                  const std::vector<CapacityExclusion>& capacity_excluded,
                                  std::int64_t gpus_per_node);

// "Not enough schedulable nodes: need N, found M" plus the architecture / capacity causes and the
// remedies when either filter dropped nodes. Unpinned asked for that job size on purpose, so its
// remedy is more qualifying nodes, never a smaller nodesPerJob (said with or without causes).
std::string not_enough_nodes_message(std::int64_t needed, std::int64_t found,
                                     std::string_view architecture,
                                     const std::vector<std::string>& arch_excluded,
                                     const std::vector<CapacityExclusion>& capacity_excluded,
                                     std::int64_t gpus_per_node, bool unpinned = false);

// Distinct non-empty nvidia.com/gpu.product values, sorted.
std::vector<std::string> distinct_gpu_products(const std::vector<boost::json::value>& nodes);

std::string node_name(const boost::json::value& node);

// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace nvcre::workflow
