#include "workflow/volume_reclaim.hpp"

#include "jsonkit/paths.hpp"
#include "workflow/dependency_plan.hpp"

#include <boost/json.hpp>

namespace nvcre::workflow {
namespace json = boost::json;

namespace {

k8s::ObjectRef volume_ref(const json::value& volume) {
  return {"v1", "PersistentVolume", "", jsonkit::string_at(volume, {"metadata", "name"})};
}

bool stamped_by(const json::value& volume, std::string_view workflow_uid) {
  return jsonkit::string_at(volume, {"metadata", "annotations",
                                     std::string_view(kWorkflowUidAnnotation)}) == workflow_uid;
}

}  // namespace

std::string bound_volume_name(const json::value& claim) {
  return jsonkit::string_at(claim, {"spec", "volumeName"});
}

std::optional<k8s::Action> stamp_volume(const json::value& volume, std::string_view workflow_uid) {
  if (workflow_uid.empty() || stamped_by(volume, workflow_uid)) return std::nullopt;
  json::object annotations{{kWorkflowUidAnnotation, workflow_uid}};
  return k8s::make_action(k8s::ActionVerb::MergePatch, volume_ref(volume),
                          json::object{{"metadata", {{"annotations", std::move(annotations)}}}});
}

VolumeReclaim reclaim_volumes(const json::value& volume_list, std::string_view workflow_uid) {
  VolumeReclaim out;
  const json::array* items =
      volume_list.is_object() ? jsonkit::find_array(volume_list.get_object(), {"items"}) : nullptr;
  if (items == nullptr || workflow_uid.empty()) return out;
  for (const auto& volume : *items) {
    if (!stamped_by(volume, workflow_uid)) continue;
    if (jsonkit::string_at(volume, {"status", "phase"}) == "Bound") {
      out.wait = true;
      continue;
    }
    if (jsonkit::string_at(volume, {"spec", "persistentVolumeReclaimPolicy"}) != "Retain") continue;
    out.flips.push_back(
        k8s::make_action(k8s::ActionVerb::MergePatch, volume_ref(volume),
                         json::object{{"spec", {{"persistentVolumeReclaimPolicy", "Delete"}}}}));
  }
  return out;
}

bool declares_claims(const api::WorkflowSpec& spec) {
  for (const auto& dependency : spec.dependencies) {
    const json::value* kind = dependency.resource.if_contains("kind");
    if (kind != nullptr && kind->is_string() && kind->get_string() == kPersistentVolumeClaimKind)
      return true;
  }
  return false;
}

}  // namespace nvcre::workflow
