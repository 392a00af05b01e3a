#include "workflow/topology_gauges.hpp"

#include "api/workflow.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/lifecycle_gauges.hpp"

#include <boost/json.hpp>

#include <iterator>
#include <set>
#include <string>
#include <utility>

namespace nvcre::workflow {
namespace json = boost::json;
using jsonkit::string_at;

namespace {

using DomainNode = std::pair<std::string, std::string>;

std::string topology_key(const json::value& workflow) {
  return string_at(workflow, {"spec", "orchestration", "topology", "topologyKey"});
}

// The current iteration's groups, or nullptr when the Workflow projects no topology gauges.
const json::array* counted_groups(const json::value& workflow) {
  if (!workflow.is_object() || topology_key(workflow).empty()) return nullptr;
  const json::value* groups = jsonkit::value_at(workflow, {"status", "orchestration", "groups"});
  return groups != nullptr && groups->is_array() ? &groups->get_array() : nullptr;
}

// The group's one domain; "" when it spans none or several.
std::string single_domain(const json::value& group) {
  const json::value* domains = jsonkit::value_at(group, {"domains"});
  if (domains == nullptr || !domains->is_array() || domains->get_array().size() != 1) return {};
  const auto& only = domains->get_array().front();
  return only.is_string() ? std::string(only.get_string()) : std::string();
}

std::vector<std::string> group_nodes(const json::value& group) {
  std::vector<std::string> out;
  const json::value* nodes = jsonkit::value_at(group, {"nodes"});
  if (nodes == nullptr || !nodes->is_array()) return out;
  for (const auto& node : nodes->get_array()) {
    if (node.is_string() && !node.get_string().empty()) out.emplace_back(node.get_string());
  }
  return out;
}

bool counted_phase(const json::value& group) {
  const std::string phase = string_at(group, {"phase"});
  return phase == api::group_phase::kSucceeded || phase == api::group_phase::kFailed;
}

// The node's domain in this group: the group's own when it spans one, else the node's label.
std::string node_domain(const std::string& group_domain, const std::string& node,
                        const NodeDomains& node_domains) {
  if (!group_domain.empty()) return group_domain;
  const auto found = node_domains.find(node);
  return found == node_domains.end() ? std::string() : found->second;
}

}  // namespace

std::vector<std::string> nodes_needing_own_domain(const json::value& workflow) {
  std::set<std::string> nodes;
  if (const json::array* groups = counted_groups(workflow)) {
    for (const auto& group : *groups) {
      if (!counted_phase(group) || !single_domain(group).empty()) continue;
      for (auto& node : group_nodes(group)) nodes.insert(std::move(node));
    }
  }
  return {nodes.begin(), nodes.end()};
}

std::vector<k8s::GaugeSample> topology_gauges(const json::value& workflow,
                                              const NodeDomains& node_domains) {
  std::vector<k8s::GaugeSample> out;
  const json::array* groups = counted_groups(workflow);
  if (groups == nullptr) return out;

  std::set<std::string> failed_nodes;
  std::set<DomainNode> failed;
  for (const auto& group : *groups) {
    if (string_at(group, {"phase"}) != api::group_phase::kFailed) continue;
    const std::string domain = single_domain(group);
    for (const auto& node : group_nodes(group)) {
      failed_nodes.insert(node);
      std::string own = node_domain(domain, node, node_domains);
      if (!own.empty()) failed.emplace(std::move(own), node);
    }
  }
  std::set<DomainNode> validated;
  for (const auto& group : *groups) {
    if (string_at(group, {"phase"}) != api::group_phase::kSucceeded) continue;
    const std::string domain = single_domain(group);
    for (const auto& node : group_nodes(group)) {
      if (failed_nodes.contains(node)) continue;
      std::string own = node_domain(domain, node, node_domains);
      if (!own.empty()) validated.emplace(std::move(own), node);
    }
  }

  const std::map<std::string, std::string> labels{
      {"namespace", string_at(workflow, {"metadata", "namespace"})},
      {"workflow", string_at(workflow, {"metadata", "name"})},
      {"topology_key", topology_key(workflow)}};
  const auto emit = [&](const char* name, const std::set<DomainNode>& nodes) {
    for (const auto& [domain, node] : nodes) {
      auto with_node = labels;
      with_node["domain"] = domain;
      with_node["node"] = node;
      out.push_back({name, std::move(with_node), 1.0});
    }
  };
  emit("nvcre_topology_validated_nodes", validated);
  emit("nvcre_topology_failed_nodes", failed);
  return out;
}

std::vector<k8s::GaugeSample> workflow_gauges(const json::value& workflow,
                                              const k8s::CacheView& cache) {
  NodeDomains node_domains;
  const std::string key = topology_key(workflow);
  for (const auto& node : nodes_needing_own_domain(workflow)) {
    const json::value* object = cache.get({"v1", "Node", "", node});
    if (object == nullptr) continue;
    std::string domain = string_at(*object, {"metadata", "labels", key});
    if (!domain.empty()) node_domains.emplace(node, std::move(domain));
  }
  std::vector<k8s::GaugeSample> out = reconcile::workflow_status_gauges(workflow);
  auto topology = topology_gauges(workflow, node_domains);
  out.insert(out.end(), std::make_move_iterator(topology.begin()),
             std::make_move_iterator(topology.end()));
  return out;
}

}  // namespace nvcre::workflow
