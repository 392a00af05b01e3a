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

}  // namespace

std::vector<k8s::GaugeSample> topology_gauges(const json::value& workflow) {
  std::vector<k8s::GaugeSample> out;
  if (!workflow.is_object()) return out;
  const std::string key = string_at(workflow, {"spec", "orchestration", "topology", "topologyKey"});
  const json::value* groups = jsonkit::value_at(workflow, {"status", "orchestration", "groups"});
  if (key.empty() || groups == nullptr || !groups->is_array()) return out;

  std::set<std::string> failed_nodes;
  std::set<DomainNode> failed;
  for (const auto& group : groups->get_array()) {
    if (string_at(group, {"phase"}) != api::group_phase::kFailed) continue;
    const std::string domain = single_domain(group);
    for (const auto& node : group_nodes(group)) {
      failed_nodes.insert(node);
      if (!domain.empty()) failed.emplace(domain, node);
    }
  }
  std::set<DomainNode> validated;
  for (const auto& group : groups->get_array()) {
    if (string_at(group, {"phase"}) != api::group_phase::kSucceeded) continue;
    const std::string domain = single_domain(group);
    if (domain.empty()) continue;
    for (const auto& node : group_nodes(group)) {
      if (!failed_nodes.contains(node)) validated.emplace(domain, node);
    }
  }

  const std::map<std::string, std::string> labels{
      {"namespace", string_at(workflow, {"metadata", "namespace"})},
      {"workflow", string_at(workflow, {"metadata", "name"})},
      {"topology_key", key}};
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

std::vector<k8s::GaugeSample> workflow_gauges(const json::value& workflow) {
  std::vector<k8s::GaugeSample> out = reconcile::workflow_status_gauges(workflow);
  auto topology = topology_gauges(workflow);
  out.insert(out.end(), std::make_move_iterator(topology.begin()),
             std::make_move_iterator(topology.end()));
  return out;
}

}  // namespace nvcre::workflow
