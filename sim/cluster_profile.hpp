#pragma once
// kube-sim's simulated GPU cluster: a profile such as `aws:h100:16` (platform, GPU architecture,
// node count) becomes that many Nodes that platform/detect.hpp recognises as that platform and
// architecture: provider IDs, GPU Feature Discovery labels, instance types, NVLink cliques for
// GB200/GB300, allocatable GPUs and the platform's NIC resource, and a Ready condition.
//
// A faulty node carries the annotation kNodeFaultAnnotation; the simulated Trainer
// (sim/trainer.hpp) fails every pod that runs there with that text. The annotation can also be
// set at run time (`kubectl annotate node gpu-node-03 sim.nvcre.nvidia.com/fault="XID 79 ..."`).
// Likewise a slow node (kNodeBusBandwidthAnnotation: the group it is in reports at most that bus
// bandwidth) and a stalled node (kNodeStallAnnotation "true": the group's run stops writing
// results after the first few and never completes by itself), and a node whose conditions turn
// False while a job runs there (kNodeConditionAnnotation, sim/node_conditions.hpp).
#include "sim/node_conditions.hpp"
#include "sim/store.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

inline constexpr std::string_view kNodeFaultAnnotation = "sim.nvcre.nvidia.com/fault";
inline constexpr std::string_view kNodeBusBandwidthAnnotation =
    "sim.nvcre.nvidia.com/bus-bandwidth-gbps";
inline constexpr std::string_view kNodeStallAnnotation = "sim.nvcre.nvidia.com/stall";
inline constexpr std::string_view kDefaultNodeFault =
    "NCCL all-reduce failed: NCCL WARN NET/IB : Got completion from peer with error 12, opcode 0, "
    "len 0, "
    "vendor err 129 (Recv)";

struct FaultyNode {
  std::string name;
  std::string reason;  // the failure the node's pods report (log line and terminated message)
};

struct SlowNode {
  std::string name;
  double bus_bandwidth_gbps = 0;  // the most its group reports
};

struct ClusterProfile {
  std::string platform;      // one of platform/platform_names.hpp
  std::string architecture;  // a GPU table key: h100, gb200, ...
  int node_count = 0;
  std::vector<FaultyNode> faulty_nodes;
  std::vector<SlowNode> slow_nodes;
  std::vector<std::string> stall_nodes;
  std::vector<NodeCondition> node_conditions{};
};

// "aws:h100:16" -> {aws, h100, 16}. The architecture may also be a product label value
// ("NVIDIA-H100-80GB-HBM3"). Throws std::invalid_argument with a usable message.
ClusterProfile parse_cluster_profile(std::string_view spec);

// "gpu-node-03" or "gpu-node-03=XID 79: GPU has fallen off the bus" (no reason: kDefaultNodeFault).
FaultyNode parse_faulty_node(std::string_view flag);

// "gpu-node-03=50" -> {gpu-node-03, 50}: GB/s, a positive number. Throws std::invalid_argument.
SlowNode parse_slow_node(std::string_view flag);

// gpu-node-00 .. gpu-node-<count-1>, zero-padded to at least two digits so names sort by index.
std::string profile_node_name(int index, int node_count);

// Every Node of the profile, complete with status. Throws std::invalid_argument when a faulty,
// slow, stalled or node-condition node is not one of the profile's nodes.
// `timestamp` (RFC 3339) stamps the node conditions.
std::vector<boost::json::value> build_cluster_nodes(
    const ClusterProfile& profile, const std::string& timestamp = "2025-01-01T00:00:00Z");

// Creates the profile's Nodes in the store (create, then the status write a kubelet would do).
void add_cluster_nodes(Store& store, const ResourceType& node_type, const ClusterProfile& profile);

}  // namespace nvcre::sim
