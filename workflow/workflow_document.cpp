#include "workflow/workflow_document.hpp"

#include "api/codec.hpp"

#include <boost/json.hpp>

namespace nvcre::workflow {
namespace json = boost::json;

namespace {

json::object* object_at(json::value& root, std::initializer_list<std::string_view> path) {
  json::value* current = &root;
  for (std::string_view key : path) {
    auto* object = current->if_object();
    if (object == nullptr) return nullptr;
    current = object->if_contains(key);
    if (current == nullptr) return nullptr;
  }
  return current->if_object();
}

// Removes `key` from `object` and returns its string value ("" when absent or not a string).
std::string take_string(json::object* object, std::string_view key) {
  if (object == nullptr) return {};
  auto it = object->find(key);
  if (it == object->end()) return {};
  std::string out = it->value().is_string() ? std::string(it->value().get_string()) : std::string();
  object->erase(it);
  return out;
}

std::vector<std::string> take_strings(json::object* object, std::string_view key) {
  std::vector<std::string> out;
  if (object == nullptr) return out;
  auto it = object->find(key);
  if (it == object->end()) return out;
  if (const auto* array = it->value().if_array()) {
    for (const auto& item : *array) {
      if (item.is_string()) out.emplace_back(item.get_string());
    }
  }
  object->erase(it);
  return out;
}

}  // namespace

WorkflowDocument read_workflow(const json::value& object) {
  json::value copy = object;
  WorkflowDocument doc;
  doc.extras.placement = take_string(object_at(copy, {"spec", "orchestration"}), "placement");
  if (auto* spec = object_at(copy, {"spec"})) {
    if (auto* overrides = spec->if_contains("overrides"); overrides != nullptr && overrides->is_array()) {
      auto& list = overrides->get_array();
      for (std::size_t i = 0; i < list.size(); ++i) {
        json::object* orchestration = object_at(list[i], {"orchestration"});
        if (orchestration == nullptr || !orchestration->contains("placement")) continue;
        doc.extras.override_placements[i] = take_string(orchestration, "placement");
      }
    }
  }
  json::object* status_orchestration = object_at(copy, {"status", "orchestration"});
  doc.extras.gpu_products = take_strings(status_orchestration, "gpuProducts");
  doc.extras.status_placement = take_string(status_orchestration, "placement");
  doc.workflow = api::decode<api::Workflow>(copy);
  doc.status_json = doc.workflow.status ? encode_status(*doc.workflow.status, doc.extras) : json::value(json::object());
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
  if (!extras.status_placement.empty()) orchestration.as_object()["placement"] = extras.status_placement;
  return out;
}

bool is_unpinned(std::string_view placement) { return placement == kPlacementUnpinned; }

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
