#include "reconcile/lifecycle_gauges.hpp"

#include "api/conditions.hpp"
#include "api/labels.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

#include <string_view>
#include <utility>

namespace nvcre::reconcile {
namespace json = boost::json;
using jsonkit::string_at;

std::vector<k8s::GaugeSample> lifecycle_status_gauges(
    const std::string& family, const std::map<std::string, std::string>& labels,
    const json::value& object) {
  std::vector<k8s::GaugeSample> out;
  if (!object.is_object()) return out;
  const auto conditions = status_conditions(object);
  namespace type = api::condition_type;
  // The verdict first, so a Job that timed out before the exclusive write reads as failed.
  const std::pair<std::string_view, std::string_view> precedence[] = {
      {type::kFailed, "failed"},
      {type::kSucceeded, "succeeded"},
      {type::kInProgress, "in_progress"}};
  std::string_view current;
  for (const auto& [condition, status] : precedence) {
    if (api::condition_is_true(conditions, condition)) {
      current = status;
      break;
    }
  }
  if (current.empty()) return out;
  for (const std::string_view status : {"in_progress", "succeeded", "failed"}) {
    auto with_status = labels;
    with_status["status"] = std::string(status);
    out.push_back({family, std::move(with_status), status == current ? 1.0 : 0.0});
  }
  return out;
}

std::vector<k8s::GaugeSample> certification_status_gauges(const json::value& certification) {
  return lifecycle_status_gauges(
      "nvcre_certification_status",
      {{"namespace", string_at(certification, {"metadata", "namespace"})},
       {"certification", string_at(certification, {"metadata", "name"})}},
      certification);
}

std::vector<k8s::GaugeSample> workflow_status_gauges(const json::value& workflow) {
  return lifecycle_status_gauges(
      "nvcre_workflow_status",
      {{"namespace", string_at(workflow, {"metadata", "namespace"})},
       {"workflow", string_at(workflow, {"metadata", "name"})},
       {"certification", string_at(workflow, {"metadata", "labels", api::kCertificationLabel})}},
      workflow);
}

}  // namespace nvcre::reconcile
