#include "job/job_health.hpp"

#include "api/conditions.hpp"
#include "job/job_failure.hpp"
#include "job/node_health_rule.hpp"

#include <boost/json.hpp>

#include <set>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

constexpr std::string_view kHardwareFailed = api::condition_type::kHardwareFailed;
constexpr std::string_view kDetectedMessage = "Hardware failure detected by node health check";

const api::CELNodeHealthCheck* configured_rule(const api::Job& job) {
  const auto& monitor = job.spec.nodeHealthMonitor;
  return monitor && monitor->cel ? &*monitor->cel : nullptr;
}

// "[a b]": the node names as Go prints a string slice.
std::string bracketed(const std::vector<api::FailedNode>& nodes) {
  std::set<std::string> names;
  for (const auto& node : nodes) {
    if (!node.name.empty()) names.insert(node.name);
  }
  std::string out = "[";
  for (const auto& name : names) out += (out.size() > 1 ? " " : "") + name;
  return out + "]";
}

std::set<std::string> active_pod_nodes(const JobPass& pass) {
  std::set<std::string> nodes;
  for (const json::value* pod : pass.pods) {
    const std::string phase = string_at(*pod, {"status", "phase"});
    const std::string node = string_at(*pod, {"spec", "nodeName"});
    if (!node.empty() && (phase == "Running" || phase == "Pending")) nodes.insert(node);
  }
  return nodes;
}

}  // namespace

std::optional<std::string> health_rule_problem(const api::Job& job) {
  const auto* rule = configured_rule(job);
  if (rule == nullptr) return std::nullopt;
  try {
    NodeHealthRule::compile(rule->expression);
    return std::nullopt;
  } catch (const NodeHealthRuleError& error) {
    return "spec.nodeHealthMonitor.cel.expression: " + std::string(error.what());
  }
}

void check_node_health(const JobPass& pass, JobStatusDraft& draft) {
  const auto* configured = configured_rule(pass.job);
  if (configured == nullptr) return;
  std::optional<NodeHealthRule> rule;
  try {
    rule = NodeHealthRule::compile(configured->expression);
  } catch (const NodeHealthRuleError&) {
    return;  // refused before the workload was created (health_rule_problem)
  }
  std::vector<api::FailedNode> found;
  for (const auto& name : active_pod_nodes(pass)) {
    const json::value* node = pass.in.cache.get(k8s::ObjectRef{"v1", "Node", "", name});
    try {
      if (node != nullptr && rule->unhealthy(*node))
        found.push_back({name, std::string(api::node_failure_reason::kHardwareFailureDetected),
                         std::string(kDetectedMessage)});
    } catch (const cel::Error&) {
      // An expression that cannot be evaluated on this node says nothing about its health.
    }
  }
  // Nodes are never removed, and only a new (node, reason) pair rewrites the condition.
  if (!merge_failed_nodes(draft.status().failedNodes, found)) return;
  const bool flips = !api::condition_is_true(draft.status().conditions, kHardwareFailed);
  const std::string message =
      "Hardware failure detected on node(s): " + bracketed(draft.status().failedNodes);
  draft.set_condition(kHardwareFailed, api::condition_status::kTrue,
                      api::job_reason::kHardwareFailureDetected, message);
  if (flips) draft.add_event("Warning", api::job_reason::kHardwareFailureDetected, message);
}

}  // namespace nvcre::job::detail
