#include "workflow/workflow_document.hpp"

#include "api/codec.hpp"
#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

namespace nvcre::workflow {
namespace json = boost::json;

namespace {

using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;

// object[key] when it is a string, else "".
std::string string_in(const json::object* object, std::string_view key) {
  const json::string* text = find_string(object, key);
  return text == nullptr ? std::string() : std::string(*text);
}

std::vector<std::string> strings_in(const json::object* object, std::string_view key) {
  std::vector<std::string> out;
  if (const json::array* array = object == nullptr ? nullptr : find_array(*object, {key})) {
    for (const auto& item : *array) {
      if (item.is_string()) out.emplace_back(item.get_string());
    }
  }
  return out;
}

// The fields read_workflow takes into WorkflowExtras, which the typed model does not describe.
bool is_extras_field(std::string_view path) {
  if (path == "spec.orchestration.placement" || path == "status.orchestration.gpuProducts" ||
      path == "status.orchestration.placement") {
    return true;
  }
  constexpr std::string_view kOverrides = "spec.overrides[";
  constexpr std::string_view kPlacement = "].orchestration.placement";
  if (!path.starts_with(kOverrides) || !path.ends_with(kPlacement)) return false;
  const std::string_view index =
      path.substr(kOverrides.size(), path.size() - kOverrides.size() - kPlacement.size());
  return !index.empty() && index.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

WorkflowDocument read_workflow(const json::value& object) {
  WorkflowDocument doc;
  static const json::object kNone;
  const json::object& root = object.is_object() ? object.get_object() : kNone;
  doc.extras.placement = string_in(find_object(root, {"spec", "orchestration"}), "placement");
  if (const json::array* overrides = find_array(root, {"spec", "overrides"})) {
    for (std::size_t i = 0; i < overrides->size(); ++i) {
      const json::value& item = (*overrides)[i];
      const json::object* orchestration =
          item.is_object() ? find_object(item.get_object(), {"orchestration"}) : nullptr;
      if (orchestration == nullptr || !orchestration->contains("placement")) continue;
      doc.extras.override_placements[i] = string_in(orchestration, "placement");
    }
  }
  const json::object* status_orchestration = find_object(root, {"status", "orchestration"});
  doc.extras.gpu_products = strings_in(status_orchestration, "gpuProducts");
  doc.extras.status_placement = string_in(status_orchestration, "placement");
  api::DecodeContext context;
  context.tolerate_unknown_fields(is_extras_field);
  doc.workflow = api::decode<api::Workflow>(object, context);
  doc.status_json = doc.workflow.status ? encode_status(*doc.workflow.status, doc.extras)
                                        : json::value(json::object());
  return doc;
}

json::value encode_status(const api::WorkflowStatus& status, const WorkflowExtras& extras) {
  json::value out = api::encode(status);
  if (extras.gpu_products.empty() && extras.status_placement.empty()) return out;
  json::object& root = out.as_object();
  json::value& orchestration = root["orchestration"];
  if (!orchestration.is_object()) orchestration = json::object();
  if (!extras.gpu_products.empty()) {
    json::array products;
    for (const auto& product : extras.gpu_products) products.emplace_back(product);
    orchestration.as_object()["gpuProducts"] = std::move(products);
  }
  if (!extras.status_placement.empty())
    orchestration.as_object()["placement"] = extras.status_placement;
  return out;
}

bool is_unpinned(std::string_view placement) { return placement == kPlacementUnpinned; }

std::string placement_problem(const api::OrchestrationSpec& orchestration,
                              std::string_view placement) {
  if (!is_unpinned(placement)) return {};
  if (orchestration.diagnose) {
    return "orchestration.placement: Unpinned is incompatible with orchestration.diagnose: "
           "diagnose isolates faults by "
           "partitioning nodes into groups and bisecting the failures, which requires the node "
           "pinning Unpinned "
           "removes; drop one of the two";
  }
  if (orchestration.topology && orchestration.topology->strictDomain) {
    return "orchestration.placement: Unpinned is incompatible with "
           "orchestration.topology.strictDomain: strictDomain "
           "runs one job per topology domain, Unpinned runs exactly one job; to confine a single "
           "unpinned job to one "
           "domain, name the domain label in target.matchExpressions instead";
  }
  return {};
}

std::string synthesized_products_problem(std::string_view placement,
                                         const std::vector<std::string>& synthesized,
                                         const std::vector<std::string>& arch_excluded) {
  if (!is_unpinned(placement) || synthesized.empty() || arch_excluded.empty()) return {};
  const auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
    return out;
  };
  return "orchestration.placement: Unpinned cannot constrain this job to a GPU architecture. " +
         std::to_string(synthesized.size()) +
         " of the target nodes carry no nvidia.com/gpu.product label and their architecture was "
         "read from gpu.nvidia.com ResourceSlices instead (" +
         join(synthesized) +
         "), so a node affinity built from it would match nothing on the API server. Discovery "
         "also excluded " +
         std::to_string(arch_excluded.size()) + " node(s) for running a different architecture (" +
         join(arch_excluded) +
         "), so without the constraint the job could land on them. Narrow target.nodeSelector or "
         "target.matchExpressions to a label the nodes actually carry, or use the default Pinned "
         "placement";
}

json::value merge_patch_between(const json::value& before, const json::value& after) {
  if (!before.is_object() || !after.is_object()) return after;
  json::object patch;
  const json::object& old_object = before.get_object();
  const json::object& new_object = after.get_object();
  for (const auto& [key, value] : new_object) {
    const json::value* old_value = old_object.if_contains(key);
    patch[key] = old_value == nullptr ? value : merge_patch_between(*old_value, value);
  }
  for (const auto& [key, value] : old_object) {
    (void)value;
    if (!new_object.contains(key)) patch[key] = nullptr;
  }
  return patch;
}

}  // namespace nvcre::workflow
