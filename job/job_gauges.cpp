#include "job/job_gauges.hpp"

#include "api/common_types.hpp"
#include "api/conditions.hpp"
#include "api/labels.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/kit.hpp"
#include "reconcile/lifecycle_gauges.hpp"

#include <boost/json.hpp>

#include <set>

namespace nvcre::job {
namespace json = boost::json;
using jsonkit::string_at;

std::vector<k8s::GaugeSample> job_gauges(const json::value& job) {
  if (!job.is_object()) return {};
  const std::map<std::string, std::string> labels{
      {"namespace", string_at(job, {"metadata", "namespace"})},
      {"job", string_at(job, {"metadata", "name"})},
      {"workflow", string_at(job, {"metadata", "labels", api::kWorkflowLabel})}};
  std::vector<k8s::GaugeSample> out =
      reconcile::lifecycle_status_gauges("nvcre_job_status", labels, job);
  const auto conditions = reconcile::status_conditions(job);
  namespace type = api::condition_type;
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
