// The groups diagnose runs (screening, bisection halves, cross-boundary probes, confirmation
// pairs) and the per-Job MNNVL switch.
#include "jsonkit/paths.hpp"
#include "workflow/diagnose.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace nvcre::workflow::diagnose {
namespace json = boost::json;

namespace {

constexpr std::string_view kMnnvlVariable = "NCCL_MNNVL_ENABLE";

std::string mnnvl_arg_prefix() { return std::string(kMnnvlVariable) + "="; }

std::vector<Group> screen_by_topology(const std::vector<PartitionNode>& nodes,
                                      std::string_view topology_key) {
  std::map<std::string, std::vector<std::string>> domains;
  for (const auto& node : nodes) {
    auto label = node.labels.find(std::string(topology_key));
    const std::string domain =
        label == node.labels.end() || label->second.empty() ? "unknown" : label->second;
    domains[domain].push_back(node.name);
  }
  std::vector<Group> groups;
  for (auto& [domain, members] : domains) {
    std::sort(members.begin(), members.end());
    groups.push_back({"screen-" + std::to_string(groups.size()), members, {domain}, false});
  }
  return groups;
}

// Chunks of max(ceil(sqrt N), 2): with an unknown number of bad nodes this balances the screening
// round against the bisection work left after it.
std::vector<Group> screen_by_size(const std::vector<PartitionNode>& nodes) {
  std::vector<std::string> names;
  for (const auto& node : nodes) names.push_back(node.name);
  std::sort(names.begin(), names.end());
  const auto count = names.size();
  const auto chunk = std::max<std::size_t>(
      static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count)))), 2);
  std::vector<Group> groups;
  for (std::size_t at = 0; at < count; at += chunk) {
    const auto end = std::min(at + chunk, count);
    groups.push_back({"screen-" + std::to_string(groups.size()),
                      {names.begin() + static_cast<std::ptrdiff_t>(at),
                       names.begin() + static_cast<std::ptrdiff_t>(end)},
                      {},
                      false});
  }
  return groups;
}

std::vector<std::string> slice(const std::vector<std::string>& nodes, std::size_t from,
                               std::size_t to) {
  return {nodes.begin() + static_cast<std::ptrdiff_t>(from),
          nodes.begin() + static_cast<std::ptrdiff_t>(to)};
}

bool holds_any(const std::vector<std::string>& nodes, const std::vector<std::string>& among) {
  const std::set<std::string> set(among.begin(), among.end());
  return std::any_of(nodes.begin(), nodes.end(),
                     [&](const std::string& n) { return set.count(n) != 0; });
}

}  // namespace

std::vector<Group> screening_groups(std::vector<PartitionNode> nodes,
                                    std::string_view topology_key) {
  if (nodes.empty()) throw std::invalid_argument("no nodes provided");
  return topology_key.empty() ? screen_by_size(nodes) : screen_by_topology(nodes, topology_key);
}

BisectResult bisect(const std::vector<Group>& failed, std::int64_t min_group_size,
                    std::int64_t round) {
  const auto floor = static_cast<std::size_t>(std::max<std::int64_t>(min_group_size, 1));
  BisectResult result;
  const std::string prefix = "bisect-" + std::to_string(round) + "-";
  for (std::size_t i = 0; i < failed.size(); ++i) {
    std::vector<std::string> nodes = failed[i].nodes;
    std::sort(nodes.begin(), nodes.end());
    if (nodes.size() <= floor) {
      result.groups.push_back({prefix + std::to_string(i), nodes, {}, false});
      continue;
    }
    result.converged = false;
    const auto mid = nodes.size() / 2;
    result.groups.push_back({prefix + std::to_string(i) + "a", slice(nodes, 0, mid), {}, false});
    result.groups.push_back(
        {prefix + std::to_string(i) + "b", slice(nodes, mid, nodes.size()), {}, false});
  }
  return result;
}

std::vector<Group> cross_boundary_groups(const std::vector<std::string>& half_a,
                                         const std::vector<std::string>& half_b,
                                         std::size_t index) {
  const auto mid_a = std::min(std::max<std::size_t>(half_a.size() / 2, 1), half_a.size());
  const auto mid_b = std::min(std::max<std::size_t>(half_b.size() / 2, 1), half_b.size());
  std::vector<std::string> first = slice(half_a, 0, mid_a);
  for (const auto& n : slice(half_b, 0, mid_b)) first.push_back(n);
  std::vector<std::string> second = slice(half_a, mid_a, half_a.size());
  for (const auto& n : slice(half_b, mid_b, half_b.size())) second.push_back(n);
  const std::string prefix = "cross-" + std::to_string(index) + "-";
  std::vector<Group> groups{{prefix + "mix0", std::move(first), {}, false}};
  if (second.size() >= 2) groups.push_back({prefix + "mix1", std::move(second), {}, false});
  return groups;
}

std::vector<Group> confirmation_groups(const std::vector<std::string>& suspects,
                                       const std::vector<std::string>& healthy) {
  std::vector<Group> groups;
  if (suspects.empty() || healthy.empty()) return groups;
  // Rotating the references keeps the pairs disjoint while there are enough of them, so they run
  // side by side.
  for (std::size_t i = 0; i < suspects.size(); ++i) {
    groups.push_back(
        {"confirm-" + std::to_string(i), {suspects[i], healthy[i % healthy.size()]}, {}, false});
  }
  return groups;
}

bool forces_mnnvl_off(const api::DiagnoseStatus& status, const std::vector<std::string>& nodes) {
  namespace stage = api::diagnose_stage;
  if (status.stage == stage::kIntraScreeningNoNVL) return true;
  if (status.stage == stage::kCrossBoundary)
    return status.crossBoundaryState &&
           status.crossBoundaryState->originStage != stage::kIntraScreening;
  if (status.stage == stage::kBisection || status.stage == stage::kConfirmation)
    return holds_any(nodes, status.noNVLSuspectNodes);
  return false;
}

bool mnnvl_enabled(const json::object& train_job) {
  const json::object* trainer = jsonkit::find_object(train_job, {"trainer"});
  if (trainer == nullptr) return false;
  const std::string prefix = mnnvl_arg_prefix();
  if (const json::array* args = jsonkit::find_array(*trainer, {"args"})) {
    for (const auto& arg : *args) {
      if (!arg.is_string()) continue;
      const std::string_view text = arg.get_string();
      if (text.starts_with(prefix)) return text.substr(prefix.size()) != "0";
    }
  }
  if (const json::array* env = jsonkit::find_array(*trainer, {"env"})) {
    for (const auto& entry : *env) {
      if (jsonkit::string_at(entry, {"name"}) == kMnnvlVariable)
        return jsonkit::string_at(entry, {"value"}) != "0";
    }
  }
  return false;
}

void force_mnnvl_off(json::object& train_job) {
  json::value& trainer_value = train_job["trainer"];
  if (!trainer_value.is_object()) trainer_value = json::object{};
  json::object& trainer = trainer_value.get_object();
  const std::string prefix = mnnvl_arg_prefix();
  if (json::array* args = jsonkit::find_array(trainer, {"args"})) {
    for (auto& arg : *args) {
      if (arg.is_string() && std::string_view(arg.get_string()).starts_with(prefix)) {
        arg = prefix + "0";
        return;
      }
    }
  }
  json::value& env_value = trainer["env"];
  if (!env_value.is_array()) env_value = json::array{};
  for (auto& entry : env_value.get_array()) {
    if (entry.is_object() && jsonkit::string_at(entry, {"name"}) == kMnnvlVariable) {
      entry.get_object()["value"] = "0";
      return;
    }
  }
  env_value.get_array().push_back(json::object{{"name", kMnnvlVariable}, {"value", "0"}});
}

}  // namespace nvcre::workflow::diagnose
