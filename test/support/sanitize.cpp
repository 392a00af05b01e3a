#include "test/support/sanitize.hpp"

#include <boost/json.hpp>

#include <string_view>

namespace nvcre::testing {
namespace {

namespace json = boost::json;

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Clock-driven strings and server-assigned identities anywhere in the tree.
void scrub(json::value& value) {
  if (auto* object = value.if_object()) {
    object->erase("resourceVersion");
    object->erase("uid");
    for (auto& [key, child] : *object) {
      if (child.is_string() && (ends_with(key, "Time") || ends_with(key, "Timestamp"))) {
        child = "<time>";
      } else {
        scrub(child);
      }
    }
  } else if (auto* array = value.if_array()) {
    for (auto& child : *array) scrub(child);
  }
}

}  // namespace

json::value sanitize_object(json::value object) {
  if (auto* metadata = object.is_object() ? object.as_object().if_contains("metadata") : nullptr) {
    if (auto* meta = metadata->if_object()) {
      for (const char* volatile_key :
           {"generation", "creationTimestamp", "managedFields", "selfLink", "deletionTimestamp",
            "deletionGracePeriodSeconds"}) {
        meta->erase(volatile_key);
      }
      if (auto* annotations = meta->if_contains("annotations");
          annotations != nullptr && annotations->is_object()) {
        if (auto* uid = annotations->as_object().if_contains("nvcre.nvidia.com/workflow-uid"))
          *uid = "<uid>";
      }
    }
  }
  scrub(object);
  return object;
}

}  // namespace nvcre::testing
