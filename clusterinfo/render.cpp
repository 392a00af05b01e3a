// The two renderings of ClusterInfo: JSON (a superset of upstream's fields, so pipelines written
// against it keep working) and the table people read.
#include "clusterinfo/cluster_info.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <sstream>

namespace nvcre::clusterinfo {
namespace json = boost::json;

namespace {

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& item : items) out.emplace_back(item);
  return out;
}

json::value topology_json(const std::optional<Topology>& topology) {
  if (!topology) return nullptr;
  json::array racks;
  for (const auto& domain : topology->domains) {
    racks.push_back(json::object{{"name", domain.name},
                                 {"nodes", strings(domain.nodes)},
                                 {"nodeCount", static_cast<std::int64_t>(domain.nodes.size())}});
  }
  return json::object{{"key", topology->key}, {"racks", std::move(racks)}};
}

json::object node_json(const NodeInfo& node) {
  json::object out{{"name", node.name}, {"gpus", node.gpus}, {"ready", node.ready}};
  if (!node.rack.empty()) out["rack"] = node.rack;
  if (!node.clique.empty()) out["clique"] = node.clique;
  out["product"] = node.product;
  out["architecture"] = node.architecture;
  out["platform"] = node.platform;
  if (node.cordoned) out["cordoned"] = true;
  if (!node.excluded.empty()) out["excluded"] = node.excluded;
  return out;
}

json::object pool_json(const NodePool& pool) {
  json::array nics;
  for (const auto& nic : pool.nic_resources)
    nics.push_back(
        json::object{{"name", nic.name}, {"perNode", nic.per_node}, {"nodes", nic.nodes}});
  json::object out{{"platform", pool.platform},
                   {"gpuProduct", pool.product},
                   {"gpuArchitecture", pool.architecture},
                   {"nodes", strings(pool.nodes)},
                   {"nodeCount", static_cast<std::int64_t>(pool.nodes.size())},
                   {"cordoned", pool.cordoned},
                   {"gpusPerNode", pool.gpus_per_node},
                   {"catalogGpusPerNode", pool.catalog_gpus_per_node},
                   {"catalogNicsPerNode", pool.catalog_nics_per_node},
                   {"nicResources", std::move(nics)}};
  if (!pool.detected_nic_resource.empty()) out["detectedNicResource"] = pool.detected_nic_resource;
  if (!pool.nic_detection_message.empty()) out["nicDetectionMessage"] = pool.nic_detection_message;
  return out;
}

// Left-aligned columns two spaces apart, each row indented by two.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = "  ";
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

struct Style {
  bool color;
  std::string heading(const std::string& text) const {
    return color ? "\033[1m" + text + "\033[0m" : text;
  }
  std::string warn(const std::string& text) const {
    return color ? "\033[33m" + text + "\033[0m" : text;
  }
};

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

void render_pools(std::ostream& out, const ClusterInfo& info, const Style& style) {
  std::vector<std::vector<std::string>> rows{{"PLATFORM", "PRODUCT", "ARCH", "NODES", "CORDONED",
                                              "GPUS/NODE", "CATALOG", "NIC RESOURCES"}};
  for (const auto& pool : info.node_pools) {
    std::vector<std::string> nics;
    for (const auto& nic : pool.nic_resources) nics.push_back(nic.name + "=" + nic.per_node);
    rows.push_back({pool.platform, pool.product.empty() ? "<none>" : pool.product,
                    pool.architecture, std::to_string(pool.nodes.size()),
                    std::to_string(pool.cordoned), std::to_string(pool.gpus_per_node),
                    std::to_string(pool.catalog_gpus_per_node),
                    nics.empty() ? "none" : join(nics, ", ")});
  }
  out << "\n" << style.heading("NODE POOLS:") << "\n" << columns(rows);
  for (const auto& pool : info.node_pools) {
    if (!pool.detected_nic_resource.empty())
      out << "  " << pool.platform << " " << pool.architecture
          << ": the controller requests NIC resource " << pool.detected_nic_resource << "\n";
    else if (!pool.nic_detection_message.empty())
      out << "  " << pool.platform << " " << pool.architecture << ": "
          << style.warn(pool.nic_detection_message) << "\n";
  }
}

// Nodes a reader has to look at: excluded, not Ready, or with fewer GPUs than the rest.
void render_attention(std::ostream& out, const ClusterInfo& info, const Style& style) {
  std::vector<std::vector<std::string>> rows{{"NODE", "GPUS", "READY", "STATUS"}};
  for (const auto& node : info.nodes) {
    const bool short_of_gpus = node.excluded.empty() && node.gpus != info.gpus_per_node;
    const bool smallest = node.excluded.empty() && node.gpus == info.gpus_per_node &&
                          std::any_of(info.nodes.begin(), info.nodes.end(), [&](const auto& n) {
                            return n.excluded.empty() && n.gpus != info.gpus_per_node;
                          });
    if (node.excluded.empty() && node.ready && !short_of_gpus && !smallest) continue;
    std::string status = node.excluded.empty() ? "certifiable" : "excluded: " + node.excluded;
    rows.push_back(
        {node.name, std::to_string(node.gpus), node.ready ? "true" : "false", std::move(status)});
  }
  if (rows.size() == 1) return;
  out << "\n" << style.heading("NODES NEEDING ATTENTION:") << "\n" << columns(rows);
}

std::string node_count(std::size_t count) {
  return std::to_string(count) + (count == 1 ? " node" : " nodes");
}

// One row per domain, and one for the GPU nodes without the label (they join no domain).
void render_topology(std::ostream& out, const std::optional<Topology>& topology,
                     std::size_t gpu_nodes, const std::string& title, const Style& style) {
  if (!topology) return;
  std::vector<std::vector<std::string>> rows;
  std::size_t labelled = 0;
  for (const auto& domain : topology->domains) {
    rows.push_back({domain.name, node_count(domain.nodes.size())});
    labelled += domain.nodes.size();
  }
  if (labelled < gpu_nodes) rows.push_back({"(no label)", node_count(gpu_nodes - labelled)});
  out << "\n" << style.heading(title + " (" + topology->key + "):") << "\n" << columns(rows);
}

void render_notes(std::ostream& out, const ClusterInfo& info, const Style& style) {
  if (info.total_nodes > 0 && info.gpus_per_node != info.catalog_gpus_per_node) {
    out << "\n"
        << style.warn("The catalog assumes " + std::to_string(info.catalog_gpus_per_node) +
                      " GPUs per node for " + info.gpu_architecture + " on " + info.platform +
                      "; these nodes have " + std::to_string(info.gpus_per_node) +
                      ". Set gpusPerNode in the Certification's options.")
        << "\n";
  }
  if (info.total_nodes > 0 && info.gpus_per_node == 0) {
    out << style.warn(
               "At least one node reports 0 allocatable nvidia.com/gpu, so nothing schedules on "
               "it; check the GPU Operator's device plugin there.")
        << "\n";
  }
}

}  // namespace

json::value to_json(const ClusterInfo& info) {
  json::array nodes;
  for (const auto& node : info.nodes) nodes.push_back(node_json(node));
  json::array pools;
  for (const auto& pool : info.node_pools) pools.push_back(pool_json(pool));
  json::object out{{"platform", info.platform},
                   {"gpuArchitecture", info.gpu_architecture},
                   {"gpuProduct", info.gpu_product},
                   {"gpusPerNode", info.gpus_per_node},
                   {"catalogGpusPerNode", info.catalog_gpus_per_node},
                   {"totalNodes", info.total_nodes},
                   {"readyNodes", info.ready_nodes},
                   {"totalGPUs", info.total_gpus},
                   {"nodes", std::move(nodes)}};
  if (info.topology) out["topology"] = topology_json(info.topology);
  if (info.nvlink_cliques) out["nvlinkCliques"] = topology_json(info.nvlink_cliques);
  out["nodePools"] = std::move(pools);
  out["cordonedNodes"] = strings(info.cordoned_nodes);
  out["excludedNodes"] = strings(info.excluded_nodes);
  if (!info.exclusion_reason.empty()) out["exclusionReason"] = info.exclusion_reason;
  if (!info.platform_warning.empty()) out["platformWarning"] = info.platform_warning;
  return out;
}

std::string render_text(const ClusterInfo& info, bool color) {
  const Style style{color};
  std::ostringstream out;
  out << "Platform:     " << info.platform << "\n"
      << "GPU:          " << (info.gpu_product.empty() ? "<no product label>" : info.gpu_product)
      << " (" << info.gpu_architecture << ", " << info.gpus_per_node << " GPUs/node)\n"
      << "Nodes:        " << info.ready_nodes << " ready (" << info.total_nodes
      << " certifiable of " << info.nodes.size() << " GPU nodes)\n"
      << "Total GPUs:   " << info.total_gpus << "\n";
  if (!info.excluded_nodes.empty()) {
    out << style.warn("Excluded:     " + std::to_string(info.excluded_nodes.size()) + " (" +
                      join(info.excluded_nodes, ", ") + ")")
        << "\n              " << info.exclusion_reason << "\n";
  }
  if (!info.platform_warning.empty())
    out << style.warn("Warning:      " + info.platform_warning) << "\n";
  render_pools(out, info, style);
  render_attention(out, info, style);
  render_notes(out, info, style);
  render_topology(out, info.topology, info.nodes.size(), "TOPOLOGY", style);
  if (!info.topology && !info.expected_topology_key.empty())
    out << "\nTopology:     no topology labels found (expected: " << info.expected_topology_key
        << ")\n";
  render_topology(out, info.nvlink_cliques, info.nodes.size(), "NVLINK CLIQUES", style);
  return out.str();
}

}  // namespace nvcre::clusterinfo
