#include "job/job_health.hpp"

#include "api/conditions.hpp"
#include "job/job_failure.hpp"

#include <boost/json.hpp>

#include <set>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

constexpr std::string_view kHardwareFailed = api::condition_type::kHardwareFailed;

// The default rule `node.spec.unschedulable == true`, evaluated exactly as CEL would on the node
// with defaults filled in: an absent field is false, a non-boolean never equals true.
bool unschedulable(const json::value& node) {
  const json::value* value = value_at(node, {"spec", "unschedulable"});
  return value != nullptr && value->is_bool() && value->get_bool();
}

std::string bracketed(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& name : names) out += (out.size() > 1 ? " " : "") + name;
  return out + "]";
}

}  // namespace

std::optional<std::string> unsupported_health_rule(const api::Job& job) {
  const auto& monitor = job.spec.nodeHealthMonitor;
  if (!monitor || !monitor->cel || monitor->cel->expression == api::kDefaultNodeHealthExpression)
    return std::nullopt;
  return "spec.nodeHealthMonitor.cel.expression \"" + monitor->cel->expression +
         "\" is not supported: only the default rule \"" +
         std::string(api::kDefaultNodeHealthExpression) +
         "\" is supported (use that rule, or no nodeHealthMonitor, in the job template)";
}

void check_node_health(const JobPass& pass, JobStatusDraft& draft) {
  const auto& monitor = pass.job.spec.nodeHealthMonitor;
  if (!monitor || !monitor->cel || unsupported_health_rule(pass.job)) return;
  std::set<std::string> nodes;
  for (const json::value* pod : pass.pods) {
    const std::string phase = string_at(*pod, {"status", "phase"});
    const std::string node = string_at(*pod, {"spec", "nodeName"});
    if (!node.empty() && (phase == "Running" || phase == "Pending")) nodes.insert(node);
  }
  std::vector<std::string> unhealthy;
  for (const auto& name : nodes) {
    const json::value* node = pass.in.cache.get(k8s::ObjectRef{"v1", "Node", "", name});
    if (node != nullptr && unschedulable(*node)) unhealthy.push_back(name);
  }
  std::vector<api::FailedNode> found;
  for (const auto& name : unhealthy) {
    found.push_back(
        {name, std::string(api::node_failure_reason::kHardwareFailureDetected),
         "node matched the health rule " + std::string(api::kDefaultNodeHealthExpression)});
  }
  // Nodes are never removed, and only a new (node, reason) pair rewrites the condition.
  if (!merge_failed_nodes(draft.status().failedNodes, found)) return;
  const bool flips = !api::condition_is_true(draft.status().conditions, kHardwareFailed);
  const std::string message = "Hardware failure detected on node(s): " + bracketed(unhealthy);
  draft.set_condition(kHardwareFailed, api::condition_status::kTrue,
                      api::job_reason::kHardwareFailureDetected, message);
  if (flips) draft.add_event("Warning", api::job_reason::kHardwareFailureDetected, message);
}

}  // namespace nvcre::job::detail
