#include "sim/openapi.hpp"

#include "api/validation.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

std::string gv_path_of(const ResourceType& type) {
  return type.group.empty() ? "api/" + type.version : "apis/" + type.group + "/" + type.version;
}

json::value operation(const ResourceType& type, const char* action) {
  json::array parameters;
  for (const char* name : {"dryRun", "fieldManager", "fieldValidation"})
    parameters.push_back(json::object{
        {"name", name}, {"in", "query"}, {"schema", json::object{{"type", "string"}}}});
  return json::object{
      {"x-kubernetes-action", action},
      {"x-kubernetes-group-version-kind",
       json::object{{"group", type.group}, {"version", type.version}, {"kind", type.kind}}},
      {"parameters", std::move(parameters)},
      {"responses", json::object{{"200", json::object{{"description", "OK"}}}}}};
}

}  // namespace

json::value openapi_v3_index(const ResourceRegistry& registry, const std::string& hash) {
  json::object paths;
  for (const auto& info : registry.all()) {
    const std::string gv = gv_path_of(info.type);
    paths[gv] = json::object{{"serverRelativeURL", "/openapi/v3/" + gv + "?hash=" + hash}};
  }
  return json::object{{"paths", std::move(paths)}};
}

std::optional<json::value> openapi_v3_document(const ResourceRegistry& registry,
                                               const std::string& gv_path) {
  json::object paths;
  for (const auto& info : registry.all()) {
    if (gv_path_of(info.type) != gv_path) continue;
    const std::string base = "/" + gv_path +
                             (info.type.namespaced ? "/namespaces/{namespace}/" : "/") +
                             info.type.resource;
    paths[base] = json::object{{"post", operation(info.type, "post")}};
    json::object item{{"put", operation(info.type, "put")},
                      {"patch", operation(info.type, "patch")}};
    paths[base + "/{name}"] = std::move(item);
    if (info.type.status_subresource)
      paths[base + "/{name}/status"] = json::object{{"put", operation(info.type, "put")},
                                                    {"patch", operation(info.type, "patch")}};
  }
  if (paths.empty()) return std::nullopt;
  return json::object{
      {"openapi", "3.0.0"},
      {"info", json::object{{"title", "Kubernetes"}, {"version", api::kImitatedKubernetesVersion}}},
      {"paths", std::move(paths)},
      {"components", json::object{{"schemas", json::object{}}}}};
}

}  // namespace nvcre::sim
