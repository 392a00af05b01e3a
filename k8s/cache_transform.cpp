#include "k8s/cache_transform.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <initializer_list>
#include <string_view>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

// Keeps only `kept` of object[field] (an object), dropping the rest.
void keep_only(json::object& object, std::string_view field,
               std::initializer_list<std::string_view> kept) {
  auto* inner = object.if_contains(field);
  if (inner == nullptr || !inner->is_object()) return;
  json::object trimmed;
  for (std::string_view key : kept) {
    if (const auto* value = inner->as_object().if_contains(key)) trimmed[key] = *value;
  }
  *inner = std::move(trimmed);
}

// Each container of spec[field] reduced to its name and image.
void keep_container_names_and_images(json::object& spec, std::string_view field) {
  auto* containers = spec.if_contains(field);
  if (containers == nullptr || !containers->is_array()) return;
  for (auto& container : containers->as_array()) {
    if (auto* fields = container.if_object()) {
      json::object kept;
      for (std::string_view key : {"name", "image"}) {
        if (const auto* value = fields->if_contains(key)) kept[key] = *value;
      }
      *fields = std::move(kept);
    }
  }
}

}  // namespace

void trim_for_cache(json::value& object) {
  auto* o = object.if_object();
  if (o == nullptr) return;
  json::object* meta = jsonkit::find_object(*o, {"metadata"});
  if (meta != nullptr) meta->erase("managedFields");
  const auto* kind = o->if_contains("kind");
  if (kind == nullptr || !kind->is_string()) return;
  if (kind->as_string() == "Pod") {
    if (meta != nullptr) meta->erase("annotations");
    // Container images tell which release of a node agent (GKE's TCPXO installer) runs.
    keep_only(*o, "spec", {"nodeName", "initContainers", "containers"});
    if (auto* spec = o->if_contains("spec"); spec != nullptr && spec->is_object()) {
      keep_container_names_and_images(spec->as_object(), "initContainers");
      keep_container_names_and_images(spec->as_object(), "containers");
    }
  } else if (kind->as_string() == "TrainJob") {
    keep_only(*o, "spec", {"suspend", "managedBy"});
  } else if (kind->as_string() == "TrainingRuntime") {
    o->erase("spec");
  }
}

}  // namespace nvcre::k8s
