#include "sim/node_conditions.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <set>
#include <stdexcept>

namespace nvcre::sim {
namespace json = boost::json;
using jsonkit::find_object;
using jsonkit::find_string;

namespace {

bool valid_type(std::string_view type) {
  if (type.empty()) return false;
  for (char c : type) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == '/';
    if (!ok) return false;
  }
  return true;
}

// Sets condition `type` to False in `status`; false when it already was.
bool set_false(json::object& status, const std::string& type, const std::string& now) {
  json::value& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  json::object condition{{"type", type},
                         {"status", "False"},
                         {"reason", kNodeConditionReason},
                         {"message", "kube-sim --node-condition: " + type + " failed"},
                         {"lastHeartbeatTime", now},
                         {"lastTransitionTime", now}};
  for (auto& existing : conditions.as_array()) {
    const auto* existing_type = find_string(existing.if_object(), "type");
    if (existing_type == nullptr || *existing_type != type) continue;
    const auto* existing_status = find_string(existing.if_object(), "status");
    if (existing_status != nullptr && *existing_status == "False") return false;
    existing = std::move(condition);
    return true;
  }
  conditions.as_array().push_back(std::move(condition));
  return true;
}

}  // namespace

NodeCondition parse_node_condition(std::string_view flag) {
  const auto equals = flag.find('=');
  if (equals == 0 || equals == std::string_view::npos || !valid_type(flag.substr(equals + 1)))
    throw std::invalid_argument(
        "--node-condition needs NAME=TYPE (the node condition set to False a few Trainer steps "
        "into a job there, e.g. gpu-node-05=GPUHealthy), got \"" +
        std::string(flag) + "\"");
  return {std::string(flag.substr(0, equals)), std::string(flag.substr(equals + 1))};
}

std::vector<std::string> conditions_on_run(const json::value& node) {
  std::vector<std::string> types;
  if (!node.is_object()) return types;
  const auto* annotations = find_object(node.as_object(), {"metadata", "annotations"});
  const auto* wanted = find_string(annotations, kNodeConditionAnnotation);
  if (wanted == nullptr) return types;
  std::string_view rest = *wanted;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto type = rest.substr(0, comma);
    if (valid_type(type)) types.emplace_back(type);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return types;
}

bool apply_node_conditions(Store& store, const ResourceType& node_type,
                           const std::vector<std::string>& node_names, const std::string& now) {
  bool changed = false;
  for (const auto& name : std::set<std::string>(node_names.begin(), node_names.end())) {
    auto node = store.find(node_type, "", name);
    if (!node) continue;
    const auto types = conditions_on_run(*node);
    if (types.empty()) continue;
    bool node_changed = false;
    for (const auto& type : types)
      node_changed =
          set_false(jsonkit::ensure_object(node->as_object(), "status"), type, now) || node_changed;
    if (!node_changed) continue;
    store.update(node_type, "", name, std::move(*node), Store::UpdateKind::Status);
    changed = true;
  }
  return changed;
}

}  // namespace nvcre::sim
