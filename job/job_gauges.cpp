#include "job/job_gauges.hpp"

#include "api/common_types.hpp"
#include "api/conditions.hpp"
#include "api/labels.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

#include <set>

namespace nvcre::job {
namespace json = boost::json;
using jsonkit::string_at;

std::vector<k8s::GaugeSample> job_gauges(const json::value& job) {
  std::vector<k8s::GaugeSample> out;
  if (!job.is_object()) return out;
  const std::map<std::string, std::string> labels{
      {"namespace", string_at(job, {"metadata", "namespace"})},
      {"job", string_at(job, {"metadata", "name"})},
      {"workflow", string_at(job, {"metadata", "labels", api::kWorkflowLabel})}};
  const auto conditions = reconcile::status_conditions(job);
  namespace type = api::condition_type;
  const std::pair<std::string_view, std::string_view> statuses[] = {
      {"in_progress", type::kInProgress},
      {"succeeded", type::kSucceeded},
      {"failed", type::kFailed}};
  bool any = false;
  for (const auto& [name, condition] : statuses)
    any |= api::condition_is_true(conditions, condition);
  for (const auto& [name, condition] : statuses) {
    if (!any) break;
    auto with_status = labels;
    with_status["status"] = std::string(name);
    out.push_back({"nvcre_job_status", with_status,
                   api::condition_is_true(conditions, condition) ? 1.0 : 0.0});
  }
  if (!api::condition_is_true(conditions, type::kHardwareFailed)) return out;
  std::set<std::string> failed;
  std::set<std::string> detected;
  const json::value* nodes = jsonkit::value_at(job, {"status", "failedNodes"});
  if (nodes != nullptr && nodes->is_array()) {
    for (const auto& node : nodes->get_array()) {
      const std::string name = string_at(node, {"name"});
      if (name.empty()) continue;
      failed.insert(name);
      if (string_at(node, {"reason"}) == api::node_failure_reason::kHardwareFailureDetected)
        detected.insert(name);
    }
  }
  out.push_back({"nvcre_job_failed_nodes", labels, static_cast<double>(failed.size())});
  out.push_back({"nvcre_hardware_failed_jobs_total", labels, 1.0});
  for (const auto& name : detected) {
    auto with_node = labels;
    with_node["node"] = name;
    out.push_back({"nvcre_hardware_failures_detected_total", with_node, 1.0});
  }
  return out;
}

}  // namespace nvcre::job
