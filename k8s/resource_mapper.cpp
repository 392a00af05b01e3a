#include "k8s/resource_mapper.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::k8s {

namespace json = boost::json;

std::pair<std::string, std::string> split_api_version(std::string_view api_version) {
  auto slash = api_version.find('/');
  if (slash == std::string_view::npos) return {"", std::string(api_version)};
  return {std::string(api_version.substr(0, slash)), std::string(api_version.substr(slash + 1))};
}

std::map<std::string, ResourceRef> resources_by_kind(const json::value& api_resource_list) {
  std::map<std::string, ResourceRef> out;
  const auto* list = api_resource_list.if_object();
  const auto* group_version = list == nullptr ? nullptr : list->if_contains("groupVersion");
  const auto* resources = list == nullptr ? nullptr : list->if_contains("resources");
  if (group_version == nullptr || !group_version->is_string() || resources == nullptr ||
      !resources->is_array()) {
    return out;
  }
  auto [group, version] = split_api_version(group_version->as_string());
  for (const auto& item : resources->as_array()) {
    const auto* r = item.if_object();
    if (r == nullptr) continue;
    const auto* name = r->if_contains("name");
    const auto* kind = r->if_contains("kind");
    const auto* namespaced = r->if_contains("namespaced");
    if (name == nullptr || !name->is_string() || kind == nullptr || !kind->is_string()) continue;
    std::string plural(name->as_string());
    if (plural.find('/') != std::string::npos) continue;  // pods/log, */status
    out[std::string(kind->as_string())] =
        ResourceRef{group, version, plural,
                    namespaced != nullptr && namespaced->is_bool() && namespaced->as_bool()};
  }
  return out;
}

ResourceRef ResourceMapper::resource_for(std::string_view api_version, std::string_view kind) {
  std::string key(api_version);
  {
    std::lock_guard lock(mutex_);
    auto gv = by_group_version_.find(key);
    if (gv != by_group_version_.end()) {
      auto it = gv->second.find(std::string(kind));
      if (it != gv->second.end()) return it->second;
    }
  }
  // Discovery outside the lock: a slow server must not stall callers of other group/versions.
  auto [group, version] = split_api_version(api_version);
  RestRequest request{
      "GET", group.empty() ? "/api/" + version : "/apis/" + group + "/" + version, {}, {}, {}};
  std::map<std::string, ResourceRef> found;
  try {
    found = resources_by_kind(json::parse(client_.request(request).body));
  } catch (const ApiError& error) {
    if (!is_not_found(error)) throw;
  }
  std::lock_guard lock(mutex_);
  auto& slot = by_group_version_[key];
  slot = std::move(found);
  auto it = slot.find(std::string(kind));
  if (it == slot.end()) {
    by_group_version_.erase(key);  // a CRD may be installed later: ask discovery again next time
    throw std::invalid_argument("no matches for kind \"" + std::string(kind) + "\" in version \"" +
                                key + "\": is its CustomResourceDefinition installed?");
  }
  return it->second;
}

void ResourceMapper::invalidate(std::string_view api_version) {
  std::lock_guard lock(mutex_);
  by_group_version_.erase(std::string(api_version));
}

}  // namespace nvcre::k8s
