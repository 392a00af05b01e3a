#pragma once
// `nvcrectl cluster info` as a pure model: what the controller would make of the cluster's GPU
// nodes. The nodes go through the controller's own steps (workflow/node_discovery.hpp: the cordon
// filter; platform/detect.hpp: platform and primary-architecture selection; platform/gpu_defaults:
// catalog sizing and on-prem NIC detection), so what this prints is what a Certification over
// every GPU node would see. No I/O: the CLI lists the nodes and hands them in.
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::clusterinfo {

struct NodeInfo {
  std::string name;
  std::int64_t gpus = 0;  // allocatable nvidia.com/gpu; 0 when absent (device plugin not up)
  bool ready = false;     // condition Ready=True
  std::string rack;       // value of the topology key ("" without one)
  std::string clique;     // nvidia.com/gpu.clique ("" without one)
  std::string product;    // nvidia.com/gpu.product
  std::string architecture;
  std::string platform;
  bool cordoned = false;  // spec.unschedulable
  std::string excluded;   // why a Certification would leave it out ("" = it would not)
};

struct TopologyDomain {
  std::string name;
  std::vector<std::string> nodes;  // sorted
};

// Nodes grouped by one label; only nodes that carry it are listed.
struct Topology {
  std::string key;
  std::vector<TopologyDomain> domains;  // sorted by name
};

struct NicResource {
  std::string name;
  std::string per_node;    // the smallest allocatable amount over the pool's nodes that have it
  std::int64_t nodes = 0;  // how many of the pool's nodes have it
};

// Nodes of one platform and one GPU product.
struct NodePool {
  std::string platform;
  std::string product;
  std::string architecture;
  std::vector<std::string> nodes;  // sorted
  std::int64_t cordoned = 0;
  std::int64_t gpus_per_node = 0;          // smallest allocatable over the pool
  std::int32_t catalog_gpus_per_node = 0;  // gpu_defaults(architecture, platform)
  std::int32_t catalog_nics_per_node = 0;
  std::vector<NicResource> nic_resources;  // by name
  // On-prem NVLink parts: the NIC resource the controller would request, or why none.
  std::string detected_nic_resource;
  std::string nic_detection_message;
};

struct ClusterInfo {
  // What a Certification over every GPU node would run on (the "certifiable" nodes: schedulable
  // and of the primary architecture).
  std::string platform;
  std::string gpu_architecture;
  std::string gpu_product;         // the most common product among the certifiable nodes
  std::int64_t gpus_per_node = 0;  // the smallest certifiable node: a job asks the same of each
  std::int32_t catalog_gpus_per_node = 0;
  std::int64_t total_nodes = 0;  // certifiable nodes
  std::int64_t ready_nodes = 0;  // certifiable nodes that are Ready
  std::int64_t total_gpus = 0;   // over the certifiable nodes
  std::vector<NodeInfo> nodes;   // every GPU node, sorted by name
  std::optional<Topology> topology;
  std::optional<Topology> nvlink_cliques;
  std::string expected_topology_key;  // the platform's key when no node carries it

  std::vector<NodePool> node_pools;  // by (platform, product)
  std::vector<std::string> cordoned_nodes;
  std::vector<std::string> excluded_nodes;  // cordoned, then other architectures
  std::string exclusion_reason;             // the controller's sentence for them
  std::string platform_warning;  // "heterogeneous platforms detected: ..." when they disagree
};

struct Options {
  std::string topology_key;  // --topology-key; "" = the platform's default
};

// `gpu_nodes`: the nodes labelled nvidia.com/gpu.present=true, in any order. Throws
// std::runtime_error when there are none.
ClusterInfo build_cluster_info(std::vector<boost::json::value> gpu_nodes, const Options& options);

// -o json / -o yaml: upstream's fields (platform, gpuArchitecture, gpuProduct, gpusPerNode,
// catalogGpusPerNode, totalNodes, totalGPUs, nodes[{name, gpus, ready, rack}], topology{key,
// racks[{name, nodes, nodeCount}]}) plus ours (readyNodes, nodePools, cordonedNodes, excludedNodes,
// exclusionReason, nvlinkCliques, platformWarning and per-node details).
boost::json::value to_json(const ClusterInfo& info);

// The table (-o table, the default). `color`: ANSI emphasis on headings and warnings.
std::string render_text(const ClusterInfo& info, bool color);

}  // namespace nvcre::clusterinfo
