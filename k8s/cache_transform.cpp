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
    keep_only(*o, "spec", {"nodeName"});
  } else if (kind->as_string() == "TrainJob") {
    keep_only(*o, "spec", {"suspend", "managedBy"});
  }
}

}  // namespace nvcre::k8s
