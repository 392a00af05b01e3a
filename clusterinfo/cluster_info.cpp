#include "clusterinfo/cluster_info.hpp"

#include "k8s/object_cache.hpp"
#include "k8s/quantity.hpp"
#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/topology_keys.hpp"
#include "workflow/node_discovery.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace nvcre::clusterinfo {
namespace json = boost::json;

namespace {

// Allocatable resources that are network devices: the RDMA / NIC device plugins of each platform
// (on-prem SR-IOV / IB, Mellanox NICs, AWS EFA, GKE multi-networking, nscale's shared RDMA).
bool is_nic_resource(std::string_view name) {
  return name.starts_with("rdma/") || name == "nvidia.com/mlnxnics" ||
         name == "vpc.amazonaws.com/efa" || name.starts_with("networking.gke.io.networks/") ||
         name == "nscale.com/rdmashare";
}

std::int64_t allocatable_gpus(const json::value& node) {
  const json::object* allocatable = platform::NodeView(node).allocatable();
  const json::value* count =
      allocatable == nullptr ? nullptr : allocatable->if_contains(workflow::kGpuResource);
  if (count == nullptr) return 0;
  auto quantity = k8s::quantity_from_json(*count);
  // A fraction or a negative count is nothing a pod can request whole.
  if (!quantity || quantity->is_negative() || quantity->milli_value() % 1000 != 0) return 0;
  return quantity->value();
}

bool is_ready(const json::value& node) {
  const json::value* conditions = nullptr;
  if (const auto* object = node.if_object())
    if (const auto* status = object->if_contains("status"); status && status->is_object())
      conditions = status->get_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const auto& condition : conditions->get_array()) {
    const auto* c = condition.if_object();
    if (c == nullptr) continue;
    const auto* type = c->if_contains("type");
    const auto* status = c->if_contains("status");
    if (type && type->is_string() && type->get_string() == "Ready")
      return status && status->is_string() && status->get_string() == "True";
  }
  return false;
}

std::string label_or_empty(const json::value& node, std::string_view key) {
  auto value = platform::NodeView(node).label(key);
  return value ? std::string(*value) : std::string();
}

// Nodes grouped by `key`; nullopt when the key is empty or no node carries it.
std::optional<Topology> group_by(std::string_view key, const std::vector<NodeInfo>& nodes,
                                 std::string NodeInfo::*field) {
  if (key.empty()) return std::nullopt;
  std::map<std::string, std::vector<std::string>> domains;
  for (const auto& node : nodes)
    if (!(node.*field).empty()) domains[node.*field].push_back(node.name);
  if (domains.empty()) return std::nullopt;
  Topology topology{std::string(key), {}};
  for (auto& [name, members] : domains) topology.domains.push_back({name, std::move(members)});
  return topology;
}

// The NIC resources of a pool: every one any node has, with the smallest amount among them.
std::vector<NicResource> nic_resources(const std::vector<const json::value*>& nodes) {
  std::map<std::string, std::pair<k8s::Quantity, std::int64_t>> found;
  for (const json::value* node : nodes) {
    const json::object* allocatable = platform::NodeView(*node).allocatable();
    if (allocatable == nullptr) continue;
    for (const auto& [name, amount] : *allocatable) {
      if (!is_nic_resource(name)) continue;
      auto quantity = k8s::quantity_from_json(amount);
      if (!quantity) continue;
      auto [it, inserted] = found.try_emplace(std::string(name), *quantity, 0);
      if (!inserted && *quantity < it->second.first) it->second.first = *quantity;
      ++it->second.second;
    }
  }
  std::vector<NicResource> out;
  for (const auto& [name, entry] : found)
    out.push_back({name, entry.first.canonical(), entry.second});
  return out;
}

std::vector<NodePool> node_pools(const std::vector<NodeInfo>& infos,
                                 const std::vector<json::value>& nodes) {
  std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < infos.size(); ++i)
    members[{infos[i].platform, infos[i].product}].push_back(i);
  std::vector<NodePool> pools;
  for (const auto& [key, indexes] : members) {
    NodePool pool;
    pool.platform = key.first;
    pool.product = key.second;
    pool.architecture = infos[indexes.front()].architecture;
    std::vector<json::value> pool_nodes;
    std::vector<const json::value*> pointers;
    for (std::size_t i : indexes) {
      pool.nodes.push_back(infos[i].name);
      pool.cordoned += infos[i].cordoned ? 1 : 0;
      pool.gpus_per_node =
          i == indexes.front() ? infos[i].gpus : std::min(pool.gpus_per_node, infos[i].gpus);
      pool_nodes.push_back(nodes[i]);
      pointers.push_back(&nodes[i]);
    }
    const auto defaults = platform::gpu_defaults(pool.architecture, pool.platform);
    pool.catalog_gpus_per_node = defaults.gpusPerNode;
    pool.catalog_nics_per_node = defaults.mlnxPerNode;
    pool.nic_resources = nic_resources(pointers);
    const auto detection = platform::detect_nic_resource_name("", pool.platform, pool.architecture,
                                                              defaults.mlnxPerNode, pool_nodes);
    pool.detected_nic_resource = detection.resourceName;
    pool.nic_detection_message = detection.message;
    pools.push_back(std::move(pool));
  }
  return pools;
}

// The product most of the nodes carry (ties: the one seen first).
std::string common_product(const std::vector<json::value>& nodes) {
  std::vector<std::string> votes;
  for (const auto& node : nodes) votes.push_back(label_or_empty(node, platform::kGpuProductLabel));
  return platform::majority_vote(votes);
}

}  // namespace

ClusterInfo build_cluster_info(std::vector<json::value> gpu_nodes, const Options& options) {
  if (gpu_nodes.empty()) {
    throw std::runtime_error(
        "no GPU nodes match target: no node is labelled nvidia.com/gpu.present=true; install the "
        "NVIDIA GPU Operator (GPU Feature Discovery labels GPU nodes) or check --context");
  }
  // Name order, as discovery hands nodes to detection (the first node decides the platform).
  std::sort(gpu_nodes.begin(), gpu_nodes.end(), [](const json::value& a, const json::value& b) {
    return workflow::node_name(a) < workflow::node_name(b);
  });
  // The controller's discovery, over a cache holding exactly these nodes.
  k8s::ObjectCache cache;
  for (auto& node : gpu_nodes) {
    auto& object = node.as_object();
    object["apiVersion"] = "v1";
    object["kind"] = "Node";
    cache.upsert(node);
  }
  const auto discovered = workflow::discover_target_nodes(cache, std::nullopt);
  const auto selection = platform::select_primary_architecture(discovered.nodes);
  const std::set<std::string> kept(selection.kept.begin(), selection.kept.end());
  std::vector<json::value> certifiable;
  for (const auto& node : discovered.nodes)
    if (kept.count(workflow::node_name(node))) certifiable.push_back(node);

  ClusterInfo info;
  const auto& basis = certifiable.empty() ? gpu_nodes : certifiable;
  info.platform = platform::detect_platform(basis);
  if (auto consistent = platform::detect_platform_consistent(basis); !consistent.ok())
    info.platform_warning = consistent.error;
  info.gpu_architecture = selection.architecture;
  info.gpu_product = common_product(certifiable);
  info.catalog_gpus_per_node =
      platform::gpu_defaults(info.gpu_architecture, info.platform).gpusPerNode;
  const std::string topology_key = options.topology_key.empty()
                                       ? std::string(platform::default_topology_key(info.platform))
                                       : options.topology_key;

  const std::set<std::string> cordoned(discovered.cordoned.begin(), discovered.cordoned.end());
  const std::set<std::string> other_arch(selection.excluded.begin(), selection.excluded.end());
  for (const auto& node : gpu_nodes) {
    NodeInfo n;
    n.name = workflow::node_name(node);
    n.gpus = allocatable_gpus(node);
    n.ready = is_ready(node);
    if (!topology_key.empty()) n.rack = label_or_empty(node, topology_key);
    n.clique = label_or_empty(node, platform::kNvlinkCliqueLabel);
    n.product = label_or_empty(node, platform::kGpuProductLabel);
    n.architecture = platform::node_gpu_architecture(node);
    n.platform = platform::detect_node_platform(node);
    n.cordoned = cordoned.count(n.name) != 0;
    if (n.cordoned)
      n.excluded = "cordoned";
    else if (other_arch.count(n.name))
      n.excluded = "not GPU architecture " + info.gpu_architecture;
    if (n.excluded.empty()) {
      info.gpus_per_node = info.total_nodes == 0 ? n.gpus : std::min(info.gpus_per_node, n.gpus);
      ++info.total_nodes;
      info.ready_nodes += n.ready ? 1 : 0;
      info.total_gpus += n.gpus;
    }
    info.nodes.push_back(std::move(n));
  }
  info.topology = group_by(topology_key, info.nodes, &NodeInfo::rack);
  if (!info.topology && options.topology_key.empty()) info.expected_topology_key = topology_key;
  info.nvlink_cliques = group_by(platform::kNvlinkCliqueLabel, info.nodes, &NodeInfo::clique);
  info.node_pools = node_pools(info.nodes, gpu_nodes);

  info.cordoned_nodes = discovered.cordoned;
  const auto record = workflow::exclusion_summary(discovered.cordoned, selection.excluded,
                                                  info.gpu_architecture, {}, 0);
  info.excluded_nodes = record.nodes;
  info.exclusion_reason = record.reason;
  return info;
}

}  // namespace nvcre::clusterinfo
