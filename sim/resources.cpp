#include "sim/resources.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

ResourceInfo builtin(std::string group, std::string version, std::string resource, std::string kind,
                     bool namespaced, std::vector<std::string> short_names = {},
                     bool status = false) {
  ResourceInfo info;
  info.type.group = std::move(group);
  info.type.version = std::move(version);
  info.type.resource = std::move(resource);
  info.type.kind = std::move(kind);
  info.type.namespaced = namespaced;
  info.type.status_subresource = status;
  info.type.allow_unconditional_update = true;
  info.singular = info.type.kind;
  std::transform(info.singular.begin(), info.singular.end(), info.singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  info.short_names = std::move(short_names);
  return info;
}

std::string string_at(const json::object& obj, const char* key) {
  const auto* v = obj.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<std::string> strings_at(const json::object& obj, const char* key) {
  std::vector<std::string> out;
  const auto* v = obj.if_contains(key);
  if (v && v->is_array())
    for (const auto& s : v->as_array())
      if (s.is_string()) out.emplace_back(s.as_string());
  return out;
}

json::array to_array(const std::vector<std::string>& items) {
  json::array out;
  for (const auto& s : items) out.emplace_back(s);
  return out;
}

ApiError crd_invalid(const std::string& name, const std::string& field,
                     const std::string& message) {
  return invalid("apiextensions.k8s.io", "CustomResourceDefinition", name,
                 {{"FieldValueInvalid", message, field}});
}

}  // namespace

ResourceRegistry::ResourceRegistry() {
  resources_ = {
      builtin("", "v1", "namespaces", "Namespace", false, {"ns"}, true),
      builtin("", "v1", "nodes", "Node", false, {"no"}, true),
      builtin("", "v1", "pods", "Pod", true, {"po"}, true),
      builtin("", "v1", "configmaps", "ConfigMap", true, {"cm"}),
      builtin("", "v1", "secrets", "Secret", true),
      builtin("", "v1", "events", "Event", true, {"ev"}),
      builtin("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, {"pvc"}, true),
      builtin("", "v1", "persistentvolumes", "PersistentVolume", false, {"pv"}, true),
      // Whose reclaim policy a provisioned volume takes (sim/volume_binder.hpp).
      builtin("storage.k8s.io", "v1", "storageclasses", "StorageClass", false, {"sc"}),
      builtin("", "v1", "services", "Service", true, {"svc"}, true),
      builtin("", "v1", "serviceaccounts", "ServiceAccount", true, {"sa"}),
      builtin("events.k8s.io", "v1", "events", "Event", true, {"ev"}),
      builtin("coordination.k8s.io", "v1", "leases", "Lease", true),
      // What an install applies (deploy/): stored and served; access is not enforced.
      builtin("apps", "v1", "deployments", "Deployment", true, {"deploy"}, true),
      builtin("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false),
      builtin("rbac.authorization.k8s.io", "v1", "clusterrolebindings", "ClusterRoleBinding",
              false),
      builtin("rbac.authorization.k8s.io", "v1", "roles", "Role", true),
      builtin("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true),
      builtin("batch", "v1", "jobs", "Job", true, {}, true),
      // Dynamic Resource Allocation, GA in resource.k8s.io/v1 since Kubernetes 1.34: what the
      // renders' claim templates (nscale GPUs/NICs, GB300 RoCE) and their pods' claims need.
      builtin("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false),
      builtin("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", true, {}, true),
      builtin("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", true),
      builtin("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false),
      builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition",
              false, {"crd", "crds"}, true),
      builtin("authentication.k8s.io", "v1", "tokenreviews", "TokenReview", false),
      builtin("authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", false),
      builtin("authorization.k8s.io", "v1", "selfsubjectaccessreviews", "SelfSubjectAccessReview",
              false),
  };
  for (auto& info : resources_) {
    if (info.type.resource == "pods") info.log_subresource = true;
    if (info.type.resource == "serviceaccounts") info.token_subresource = true;
    // Both groups hold review kinds only.
    info.review =
        info.type.group == "authentication.k8s.io" || info.type.group == "authorization.k8s.io";
  }
}

std::vector<ResourceInfo> ResourceRegistry::from_crd(const json::value& crd) {
  const std::string name = crd.is_object()
                               ? string_at(crd.as_object().contains("metadata") &&
                                                   crd.as_object().at("metadata").is_object()
                                               ? crd.as_object().at("metadata").as_object()
                                               : json::object{},
                                           "name")
                               : std::string();
  const auto* spec_value = crd.is_object() ? crd.as_object().if_contains("spec") : nullptr;
  if (!spec_value || !spec_value->is_object()) throw crd_invalid(name, "spec", "Required value");
  const auto& spec = spec_value->as_object();
  const std::string group = string_at(spec, "group");
  if (group.empty()) throw crd_invalid(name, "spec.group", "Required value");
  const auto* names_value = spec.if_contains("names");
  if (!names_value || !names_value->is_object())
    throw crd_invalid(name, "spec.names", "Required value");
  const auto& names = names_value->as_object();
  const std::string plural = string_at(names, "plural");
  const std::string kind = string_at(names, "kind");
  if (plural.empty()) throw crd_invalid(name, "spec.names.plural", "Required value");
  if (kind.empty()) throw crd_invalid(name, "spec.names.kind", "Required value");
  if (name != plural + "." + group)
    throw crd_invalid(
        name, "metadata.name",
        "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group");
  const std::string scope = string_at(spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster")
    throw crd_invalid(
        name, "spec.scope",
        "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"");
  std::vector<ResourceInfo> out;
  const auto* versions = spec.if_contains("versions");
  if (!versions || !versions->is_array() || versions->as_array().empty())
    throw crd_invalid(name, "spec.versions",
                      "Invalid value: []: must have exactly one version marked as storage version");
  for (const auto& v : versions->as_array()) {
    if (!v.is_object()) continue;
    const auto& version = v.as_object();
    const auto* served = version.if_contains("served");
    if (!served || !served->is_bool() || !served->as_bool()) continue;
    ResourceInfo info;
    info.type.group = group;
    info.type.version = string_at(version, "name");
    info.type.resource = plural;
    info.type.kind = kind;
    info.type.namespaced = scope == "Namespaced";
    info.type.allow_unconditional_update = false;
    const auto* subresources = version.if_contains("subresources");
    info.type.status_subresource =
        subresources && subresources->is_object() && subresources->as_object().contains("status");
    info.singular = string_at(names, "singular");
    if (info.singular.empty()) {
      info.singular = kind;
      std::transform(info.singular.begin(), info.singular.end(), info.singular.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    }
    info.short_names = strings_at(names, "shortNames");
    info.categories = strings_at(names, "categories");
    info.crd_name = name;
    if (const auto* columns = version.if_contains("additionalPrinterColumns");
        columns && columns->is_array())
      info.printer_columns = columns->as_array();
    out.push_back(std::move(info));
  }
  return out;
}

void ResourceRegistry::add(std::vector<ResourceInfo> infos) {
  for (auto& info : infos) {
    auto it = std::find_if(resources_.begin(), resources_.end(), [&](const ResourceInfo& r) {
      return r.type.group == info.type.group && r.type.version == info.type.version &&
             r.type.resource == info.type.resource;
    });
    if (it != resources_.end()) {
      *it = std::move(info);
    } else {
      resources_.push_back(std::move(info));
    }
  }
}

void ResourceRegistry::remove_crd(const std::string& crd_name) {
  std::erase_if(resources_, [&](const ResourceInfo& r) {
    return !r.crd_name.empty() && r.crd_name == crd_name;
  });
}

const ResourceInfo* ResourceRegistry::find(const std::string& group, const std::string& version,
                                           const std::string& resource) const {
  for (const auto& r : resources_)
    if (r.type.group == group && r.type.version == version && r.type.resource == resource)
      return &r;
  return nullptr;
}

const ResourceInfo* ResourceRegistry::find_kind(const std::string& group,
                                                const std::string& version,
                                                const std::string& kind) const {
  for (const auto& r : resources_)
    if (r.type.group == group && r.type.version == version && r.type.kind == kind && !r.review)
      return &r;
  return nullptr;
}

std::vector<std::string> ResourceRegistry::versions_of(const std::string& group) const {
  std::vector<std::string> versions;
  for (const auto& r : resources_)
    if (r.type.group == group &&
        std::find(versions.begin(), versions.end(), r.type.version) == versions.end())
      versions.push_back(r.type.version);
  return versions;
}

json::value ResourceRegistry::core_versions() const {
  return json::object{
      {"kind", "APIVersions"},
      {"versions", json::array{"v1"}},
      {"serverAddressByClientCIDRs",
       json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1"}}}}};
}

std::optional<json::value> ResourceRegistry::group(const std::string& group_name) const {
  auto versions = versions_of(group_name);
  if (group_name.empty() || versions.empty()) return std::nullopt;
  json::array list;
  for (const auto& v : versions)
    list.push_back(json::object{{"groupVersion", group_name + "/" + v}, {"version", v}});
  json::object preferred = list.front().as_object();
  return json::object{{"kind", "APIGroup"},
                      {"apiVersion", "v1"},
                      {"name", group_name},
                      {"versions", std::move(list)},
                      {"preferredVersion", std::move(preferred)}};
}

json::value ResourceRegistry::group_list() const {
  std::vector<std::string> groups;
  for (const auto& r : resources_)
    if (!r.type.group.empty() &&
        std::find(groups.begin(), groups.end(), r.type.group) == groups.end())
      groups.push_back(r.type.group);
  json::array list;
  for (const auto& g : groups) {
    json::object entry = group(g)->as_object();
    entry.erase("kind");
    entry.erase("apiVersion");
    list.push_back(std::move(entry));
  }
  return json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(list)}};
}

std::optional<json::value> ResourceRegistry::resource_list(const std::string& group_name,
                                                           const std::string& version) const {
  json::array list;
  const json::array verbs{"create", "delete", "deletecollection", "get",
                          "list",   "patch",  "update",           "watch"};
  for (const auto& r : resources_) {
    if (r.type.group != group_name || r.type.version != version) continue;
    json::object entry{{"name", r.type.resource},
                       {"singularName", r.singular},
                       {"namespaced", r.type.namespaced},
                       {"kind", r.type.kind},
                       {"verbs", r.review ? json::array{"create"} : verbs}};
    if (!r.short_names.empty()) entry["shortNames"] = to_array(r.short_names);
    if (!r.categories.empty()) entry["categories"] = to_array(r.categories);
    list.push_back(std::move(entry));
    if (r.type.status_subresource)
      list.push_back(json::object{{"name", r.type.resource + "/status"},
                                  {"singularName", ""},
                                  {"namespaced", r.type.namespaced},
                                  {"kind", r.type.kind},
                                  {"verbs", json::array{"get", "patch", "update"}}});
    if (r.token_subresource)
      list.push_back(json::object{{"name", r.type.resource + "/token"},
                                  {"singularName", ""},
                                  {"namespaced", r.type.namespaced},
                                  {"group", "authentication.k8s.io"},
                                  {"version", "v1"},
                                  {"kind", "TokenRequest"},
                                  {"verbs", json::array{"create"}}});
    if (r.log_subresource)
      list.push_back(json::object{{"name", r.type.resource + "/log"},
                                  {"singularName", ""},
                                  {"namespaced", r.type.namespaced},
                                  {"kind", r.type.kind},
                                  {"verbs", json::array{"get"}}});
  }
  if (list.empty()) return std::nullopt;
  const std::string gv = group_name.empty() ? version : group_name + "/" + version;
  return json::object{{"kind", "APIResourceList"},
                      {"apiVersion", "v1"},
                      {"groupVersion", gv},
                      {"resources", std::move(list)}};
}

}  // namespace nvcre::sim
