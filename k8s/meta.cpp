#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::k8s {
namespace json = boost::json;
using jsonkit::string_at;
using jsonkit::value_at;

json::object owner_reference(std::string_view api_version, std::string_view kind,
                             std::string_view name, std::string_view uid, bool controller) {
  json::object ref{{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", uid}};
  if (controller) {
    ref["controller"] = true;
    ref["blockOwnerDeletion"] = true;
  }
  return ref;
}

const json::value* controller_reference(const json::value& object) {
  const auto* owners = value_at(object, {"metadata", "ownerReferences"});
  if (owners == nullptr || !owners->is_array()) return nullptr;
  for (const auto& owner : owners->as_array()) {
    const auto* controller = value_at(owner, {"controller"});
    if (controller != nullptr && controller->is_bool() && controller->as_bool()) return &owner;
  }
  return nullptr;
}

bool is_controlled_by(const json::value& object, std::string_view owner_uid) {
  const auto* controller = controller_reference(object);
  return controller != nullptr && !owner_uid.empty() &&
         string_at(*controller, {"uid"}) == owner_uid;
}

bool has_owner(const json::value& object, std::string_view owner_uid) {
  const auto* owners = value_at(object, {"metadata", "ownerReferences"});
  if (owner_uid.empty() || owners == nullptr || !owners->is_array()) return false;
  return std::any_of(owners->as_array().begin(), owners->as_array().end(),
                     [&](const json::value& owner) {
                       const auto* uid = value_at(owner, {"uid"});
                       return uid != nullptr && uid->is_string() && uid->get_string() == owner_uid;
                     });
}

bool is_being_deleted(const json::value& object) {
  return !string_at(object, {"metadata", "deletionTimestamp"}).empty();
}

std::vector<std::string> finalizers_of(const json::value& object) {
  std::vector<std::string> out;
  const auto* list = value_at(object, {"metadata", "finalizers"});
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& item : list->as_array()) {
    if (item.is_string()) out.emplace_back(item.as_string());
  }
  return out;
}

bool has_finalizer(const json::value& object, std::string_view finalizer) {
  const auto list = finalizers_of(object);
  return std::find(list.begin(), list.end(), finalizer) != list.end();
}

void add_finalizer(json::value& object, std::string_view finalizer) {
  if (has_finalizer(object, finalizer)) return;
  json::value& metadata = object.as_object()["metadata"];
  if (!metadata.is_object()) metadata = json::object{};
  json::value& list = metadata.as_object()["finalizers"];
  if (!list.is_array()) list = json::array{};
  list.as_array().emplace_back(finalizer);
}

namespace {

Action finalizers_patch(const ObjectRef& self, const json::value& object, json::array list) {
  Action action;
  action.verb = ActionVerb::MergePatch;
  action.target = self;
  action.body = json::object{
      {"metadata",
       json::object{{"finalizers", std::move(list)},
                    {"resourceVersion", string_at(object, {"metadata", "resourceVersion"})}}}};
  return action;
}

json::array finalizers_without(const json::value& object, std::string_view finalizer) {
  json::array kept;
  for (const auto& name : finalizers_of(object)) {
    if (name != finalizer) kept.emplace_back(name);
  }
  return kept;
}

}  // namespace

Action add_finalizer_patch(const ObjectRef& self, const json::value& object,
                           std::string_view finalizer) {
  json::array list;
  for (const auto& name : finalizers_of(object)) list.emplace_back(name);
  list.emplace_back(finalizer);
  return finalizers_patch(self, object, std::move(list));
}

Action remove_finalizer_patch(const ObjectRef& self, const json::value& object,
                              std::string_view finalizer) {
  return finalizers_patch(self, object, finalizers_without(object, finalizer));
}

Action remove_finalizer_update(const ObjectRef& self, const json::value& object,
                               std::string_view finalizer) {
  json::value body = object;
  body.as_object()["metadata"].as_object()["finalizers"] = finalizers_without(object, finalizer);
  Action action;
  action.verb = ActionVerb::Update;
  action.target = self;
  action.body = std::move(body);
  return action;
}

}  // namespace nvcre::k8s
