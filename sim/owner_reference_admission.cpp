#include "sim/owner_reference_admission.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::sim::owner_references {

namespace json = boost::json;

namespace {

const json::array* references_of(const json::value* object) {
  if (object == nullptr || !object->is_object()) return nullptr;
  return jsonkit::find_array(object->as_object(), {"metadata", "ownerReferences"});
}

bool blocks(const json::value& ref) {
  const json::value* block = ref.as_object().if_contains("blockOwnerDeletion");
  return block != nullptr && block->is_bool() && block->as_bool();
}

std::string string_field(const json::value& ref, const char* key) {
  return jsonkit::string_of(&ref.as_object(), key);
}

}  // namespace

bool changed(const json::value* old_object, const json::value& object) {
  const json::array* before = references_of(old_object);
  const json::array* after = references_of(&object);
  const bool had = before != nullptr && !before->empty();
  const bool has = after != nullptr && !after->empty();
  if (!had || !has) return had != has;
  return *before != *after;
}

std::vector<BlockingReference> newly_blocking(const json::value* old_object,
                                              const json::value& object) {
  std::vector<BlockingReference> out;
  const json::array* after = references_of(&object);
  if (after == nullptr) return out;
  const json::array* before = references_of(old_object);
  for (const auto& ref : *after) {
    if (!ref.is_object() || !blocks(ref)) continue;
    const std::string uid = string_field(ref, "uid");
    const bool blocked_before =
        before != nullptr && std::any_of(before->begin(), before->end(), [&](const auto& old) {
          return old.is_object() && blocks(old) && string_field(old, "uid") == uid;
        });
    if (!blocked_before)
      out.push_back(
          {string_field(ref, "apiVersion"), string_field(ref, "kind"), string_field(ref, "name")});
  }
  return out;
}

std::string cannot_delete_message() {
  return "cannot set an ownerRef on a resource you can't delete: , <nil>";
}

std::string cannot_set_finalizers_message() {
  return "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set "
         "finalizers on: , <nil>";
}

std::string unmapped_owner_message(const BlockingReference& ref) {
  return "cannot set blockOwnerDeletion in this case because cannot find RESTMapping for "
         "APIVersion " +
         ref.api_version + " Kind " + ref.kind + ": no matches for kind \"" + ref.kind +
         "\" in version \"" + ref.api_version + "\"";
}

}  // namespace nvcre::sim::owner_references
