#include "workflow/node_discovery.hpp"

#include "api/codec.hpp"
#include "jsonkit/numbers.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/label_selector.hpp"
#include "k8s/quantity.hpp"
#include "platform/detect.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>

namespace nvcre::workflow {
namespace json = boost::json;

namespace {

const json::object* object_member(const json::value& value, std::string_view key) {
  const auto* object = value.if_object();
  const json::value* member = object == nullptr ? nullptr : object->if_contains(key);
  return member == nullptr ? nullptr : member->if_object();
}

std::string string_member(const json::object* object, std::string_view key) {
  const json::value* value = object == nullptr ? nullptr : object->if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

// The target's matchExpressions as one selector; nullopt when one of them can match no node (an
// operator other than In, NotIn, Exists and DoesNotExist, or an invalid requirement), which
// rejects every node.
std::optional<k8s::LabelSelector> compile_expressions(
    const std::vector<api::NodeSelectorRequirement>& expressions) {
  using Op = k8s::Requirement::Operator;
  std::vector<k8s::Requirement> requirements;
  for (const auto& expression : expressions) {
    Op op;
    if (expression.operator_ == api::node_selector_operator::kIn) {
      op = Op::In;
    } else if (expression.operator_ == api::node_selector_operator::kNotIn) {
      op = Op::NotIn;
    } else if (expression.operator_ == api::node_selector_operator::kExists) {
      op = Op::Exists;
    } else if (expression.operator_ == api::node_selector_operator::kDoesNotExist) {
      op = Op::DoesNotExist;
    } else {
      return std::nullopt;
    }
    try {
      requirements.push_back(k8s::make_requirement(expression.key, op, expression.values));
    } catch (const std::invalid_argument&) {
      return std::nullopt;
    }
  }
  return k8s::LabelSelector::from_requirements(std::move(requirements));
}

// Reads a node's labels in place: discovery runs on every Workflow pass over the whole fleet.
std::function<std::optional<std::string_view>(std::string_view)> label_reader(
    const json::value& node) {
  const json::object* labels = jsonkit::object_at(node, {"metadata", "labels"});
  return [labels](std::string_view key) -> std::optional<std::string_view> {
    const json::string* value = jsonkit::find_string(labels, key);
    if (value == nullptr) return std::nullopt;
    return std::string_view(*value);
  };
}

bool has_taint(const json::value& node, const api::TaintSelector& selector) {
  const json::object* spec = object_member(node, "spec");
  const json::value* taints = spec == nullptr ? nullptr : spec->if_contains("taints");
  if (taints == nullptr || !taints->is_array()) return false;
  for (const auto& taint : taints->get_array()) {
    const json::object* t = taint.if_object();
    if (t == nullptr || string_member(t, "key") != selector.key) continue;
    if (!selector.value.empty() && string_member(t, "value") != selector.value) continue;
    if (!selector.effect.empty() && string_member(t, "effect") != selector.effect) continue;
    return true;
  }
  return false;
}

bool is_unschedulable(const json::value& node) {
  const json::object* spec = object_member(node, "spec");
  const json::value* flag = spec == nullptr ? nullptr : spec->if_contains("unschedulable");
  return flag != nullptr && flag->is_bool() && flag->get_bool();
}

// A GPU request value: a quantity string or a number; unparseable or non-positive reads as 0.
std::int64_t gpu_request_value(const json::value& value) {
  if (value.is_string()) {
    auto quantity = k8s::Quantity::parse(value.get_string());
    if (!quantity || quantity->milli_value() % 1000 != 0) return 0;
    return std::max<std::int64_t>(quantity->value(), 0);
  }
  if (value.is_int64()) return std::max<std::int64_t>(value.get_int64(), 0);
  if (value.is_uint64())
    return static_cast<std::int64_t>(std::min<std::uint64_t>(value.get_uint64(), INT64_MAX));
  if (value.is_double())
    return value.get_double() > 0 ? jsonkit::clamped_int64(value.get_double()) : 0;
  return 0;
}

std::int64_t max_gpu_request(const json::value& document) {
  std::int64_t found = 0;
  if (const auto* object = document.if_object()) {
    for (const auto& [key, value] : *object) {
      if ((key == "requests" || key == "limits") && value.is_object()) {
        if (const json::value* gpus = value.get_object().if_contains(kGpuResource)) {
          found = std::max(found, gpu_request_value(*gpus));
        }
      }
      found = std::max(found, max_gpu_request(value));
    }
  } else if (const auto* array = document.if_array()) {
    for (const auto& item : *array) found = std::max(found, max_gpu_request(item));
  }
  return found;
}

}  // namespace

std::string node_name(const json::value& node) {
  return string_member(object_member(node, "metadata"), "name");
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += separator;
    out += items[i];
  }
  return out;
}

bool targets_cordoned_nodes(const std::optional<api::TargetSpec>& target) {
  if (!target) return false;
  return std::any_of(target->taintSelectors.begin(), target->taintSelectors.end(),
                     [](const api::TaintSelector& s) { return s.key == kUnschedulableTaint; });
}

DiscoveredNodeViews discover_target_node_views(const k8s::CacheView& cache,
                                               const std::optional<api::TargetSpec>& target) {
  k8s::LabelSelector selector;
  if (target && !target->nodeSelector.empty())
    selector = k8s::LabelSelector::from_match_labels(target->nodeSelector);
  const bool keep_cordoned = targets_cordoned_nodes(target);
  const auto expressions = target ? compile_expressions(target->matchExpressions)
                                  : std::optional<k8s::LabelSelector>(k8s::LabelSelector());
  DiscoveredNodeViews out;
  if (!expressions) return out;  // an expression no node can satisfy
  auto consider = [&](const json::value& node) {
    const auto label = label_reader(node);
    if (!expressions->empty() && !expressions->matches_lookup(label)) return;
    if (target && !std::all_of(target->taintSelectors.begin(), target->taintSelectors.end(),
                               [&](const api::TaintSelector& s) { return has_taint(node, s); })) {
      return;
    }
    const bool gpu_present = label(kGpuPresentLabel) == std::optional<std::string_view>("true");
    if (!keep_cordoned && is_unschedulable(node)) {
      if (gpu_present) out.cordoned.push_back(node_name(node));  // only GPU nodes cost coverage
      return;
    }
    if (gpu_present) out.nodes.push_back(&node);
  };
  if (target && !target->nodeNames.empty()) {
    // Named nodes are read by name: a fleet's other nodes are never looked at.
    const std::set<std::string> names(target->nodeNames.begin(), target->nodeNames.end());
    for (const auto& name : names) {
      const json::value* node = cache.get({"v1", "Node", "", name});
      if (node != nullptr && selector.matches_lookup(label_reader(*node))) consider(*node);
    }
  } else {
    for (const json::value* node : cache.list("v1", "Node", "", selector)) consider(*node);
  }
  std::stable_sort(
      out.nodes.begin(), out.nodes.end(),
      [](const json::value* a, const json::value* b) { return node_name(*a) < node_name(*b); });
  std::sort(out.cordoned.begin(), out.cordoned.end());
  return out;
}

DiscoveredNodes discover_target_nodes(const k8s::CacheView& cache,
                                      const std::optional<api::TargetSpec>& target) {
  auto views = discover_target_node_views(cache, target);
  DiscoveredNodes out;
  out.nodes.reserve(views.nodes.size());
  for (const json::value* node : views.nodes) out.nodes.push_back(*node);
  out.cordoned = std::move(views.cordoned);
  return out;
}

std::int64_t workload_gpus_per_node(const api::WorkflowSpec& spec) {
  std::int64_t found = max_gpu_request(api::encode(spec.jobTemplate));
  for (const auto& dependency : spec.dependencies) {
    found = std::max(found, max_gpu_request(json::value(dependency.resource)));
  }
  return std::min<std::int64_t>(found, INT32_MAX);
}

CapacityFilter filter_by_gpu_capacity(std::vector<json::value> nodes, std::int64_t gpus) {
  CapacityFilter out;
  for (auto& node : nodes) {
    const json::object* allocatable = platform::NodeView(node).allocatable();
    const json::value* count =
        allocatable == nullptr ? nullptr : allocatable->if_contains(kGpuResource);
    if (gpus > 0 && count != nullptr) {
      auto quantity = k8s::quantity_from_json(*count);
      if (quantity && quantity->milli_value() % 1000 == 0 && quantity->value() > 0 &&
          quantity->value() < gpus) {
        out.excluded.push_back({node_name(node), quantity->value()});
        continue;
      }
    }
    out.kept.push_back(std::move(node));
  }
  return out;
}

std::string gpu_shortfall_detail(const std::vector<CapacityExclusion>& excluded) {
  std::vector<std::string> parts;
  for (const auto& e : excluded) parts.push_back(e.node + " has " + std::to_string(e.allocatable));
  return join(parts);
}

ExclusionRecord exclusion_summary(const std::vector<std::string>& cordoned,
                                  const std::vector<std::string>& arch_excluded,
                                  std::string_view architecture,
                                  const std::vector<CapacityExclusion>& capacity_excluded,
                                  std::int64_t gpus_per_node) {
  ExclusionRecord record;
  std::vector<std::string> reasons;
  if (!cordoned.empty()) {
    record.nodes.insert(record.nodes.end(), cordoned.begin(), cordoned.end());
    reasons.push_back(
        std::to_string(cordoned.size()) +
        " node(s) matched the target but were unschedulable (cordoned): " + join(cordoned));
  }
  if (!arch_excluded.empty()) {
    record.nodes.insert(record.nodes.end(), arch_excluded.begin(), arch_excluded.end());
    reasons.push_back("target set has more than one GPU architecture; certified " +
                      std::string(architecture) + " only");
  }
  if (!capacity_excluded.empty()) {
    for (const auto& e : capacity_excluded) record.nodes.push_back(e.node);
    reasons.push_back(
        std::to_string(capacity_excluded.size()) +
        " node(s) matched the target but have insufficient GPU capacity, the workload requests " +
        std::to_string(gpus_per_node) +
        " nvidia.com/gpu per node: " + gpu_shortfall_detail(capacity_excluded));
  }
  // ". " because the architecture sentence already contains a semicolon.
  record.reason = join(reasons, ". ");
  return record;
}

std::string not_enough_nodes_message(std::int64_t needed, std::int64_t found,
                                     std::string_view architecture,
                                     const std::vector<std::string>& arch_excluded,
                                     const std::vector<CapacityExclusion>& capacity_excluded,
                                     std::int64_t gpus_per_node, bool unpinned) {
  std::string message = "Not enough schedulable nodes: need " + std::to_string(needed) +
                        ", found " + std::to_string(found);
  std::vector<std::string> causes;
  std::vector<std::string> remedies;
  if (!arch_excluded.empty()) {
    causes.push_back(
        std::to_string(arch_excluded.size()) +
        " node(s) matched the target but were excluded for not being GPU architecture " +
        std::string(architecture) + ": " + join(arch_excluded));
    remedies.emplace_back("narrow the target to one architecture");
  }
  if (!capacity_excluded.empty()) {
    causes.push_back(std::to_string(capacity_excluded.size()) +
                     " node(s) matched the target but were excluded for having fewer than the " +
                     std::to_string(gpus_per_node) +
                     " allocatable nvidia.com/gpu the workload requests per node: " +
                     gpu_shortfall_detail(capacity_excluded));
    remedies.emplace_back("lower gpusPerNode");
  }
  if (unpinned) {
    if (!causes.empty()) message += ". " + join(causes, ". ");
    message += ". Make " + std::to_string(needed) +
               " qualifying nodes available rather than lowering nodesPerJob";
    return remedies.empty() ? message : message + ", or " + join(remedies, ", or ");
  }
  if (causes.empty()) return message;
  return message + ". " + join(causes, ". ") + ". Set nodesPerJob to " + std::to_string(found) +
         ", or " + join(remedies, ", or ");
}

std::vector<std::string> distinct_gpu_products(const std::vector<json::value>& nodes) {
  std::set<std::string> products;
  for (const auto& node : nodes) {
    auto label = platform::NodeView(node).label(platform::kGpuProductLabel);
    if (label && !label->empty()) products.emplace(*label);
  }
  return {products.begin(), products.end()};
}

}  // namespace nvcre::workflow
