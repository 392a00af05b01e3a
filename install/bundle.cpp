#include "install/bundle.hpp"

#include "api/logprofiles.hpp"
#include "api/schema.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>

namespace nvcre::install {
namespace json = boost::json;
namespace {

std::optional<std::string_view> find_file(const BundleSources& sources, const std::string& name) {
  for (const auto& span : sources.files)
    for (const auto& file : span)
      if (file.name == name) return file.content;
  return std::nullopt;
}

// A directory's kustomization, under either of the names kustomize accepts.
std::pair<std::string, std::string_view> kustomization_of(const BundleSources& sources,
                                                          const std::string& dir) {
  for (const char* name : {"kustomization.yaml", "kustomization.yml", "Kustomization"}) {
    const std::string path = dir + "/" + name;
    if (auto content = find_file(sources, path)) return {path, *content};
  }
  throw std::invalid_argument(dir + ": no kustomization compiled in (the binary embeds " + dir +
                              "/kustomization.yaml or Kustomization; rebuild after adding it)");
}

constexpr std::array<std::string_view, 11> kApplyOrder = {
    "Namespace",      "CustomResourceDefinition",
    "ServiceAccount", "Secret",
    "ClusterRole",    "ClusterRoleBinding",
    "Role",           "RoleBinding",
    "ConfigMap",      "Service",
    "Deployment"};

std::size_t apply_rank(const json::value& object) {
  const std::string kind = jsonkit::string_at(object, {"kind"});
  for (std::size_t i = 0; i < kApplyOrder.size(); ++i)
    if (kApplyOrder[i] == kind) return i;
  return kApplyOrder.size();  // custom resources and anything else last
}

}  // namespace

BundleSources embedded_sources() {
  return BundleSources{
      {embedded_manifest_files(), api::embedded_crd_files(), api::embedded_logprofile_files()}};
}

std::vector<json::value> resolve_kustomization(const BundleSources& sources,
                                               const std::string& dir) {
  const auto [path, text] = kustomization_of(sources, dir);
  const json::value kustomization = jsonkit::parse_yaml(text);
  if (!kustomization.is_object()) throw std::invalid_argument(path + ": not a mapping");
  for (const auto& [key, value] : kustomization.as_object()) {
    if (key != "apiVersion" && key != "kind" && key != "resources")
      throw std::invalid_argument(path + ": \"" + std::string(key) +
                                  "\" is not supported by nvcrectl setup (only resources); move it "
                                  "into an overlay and install that with kubectl apply -k");
  }
  std::vector<json::value> objects;
  const auto* resources = kustomization.as_object().if_contains("resources");
  if (resources == nullptr || !resources->is_array()) return objects;
  for (const auto& entry : resources->as_array()) {
    if (!entry.is_string()) throw std::invalid_argument(path + ": a resource is not a string");
    const std::string resource = dir + "/" + std::string(entry.as_string());
    if (auto content = find_file(sources, resource)) {
      for (auto& document : jsonkit::parse_yaml_documents(*content))
        if (document.is_object()) objects.push_back(std::move(document));
      continue;
    }
    bool is_directory = false;
    for (const auto& span : sources.files)
      for (const auto& file : span)
        if (file.name.starts_with(resource + "/")) is_directory = true;
    if (!is_directory)
      throw std::invalid_argument(path + ": resource \"" + std::string(entry.as_string()) +
                                  "\" is not compiled in (rebuild nvcrectl after adding it)");
    for (auto& object : resolve_kustomization(sources, resource)) objects.push_back(object);
  }
  return objects;
}

std::vector<json::value> apply_order(std::vector<json::value> objects) {
  std::stable_sort(objects.begin(), objects.end(), [](const json::value& a, const json::value& b) {
    return apply_rank(a) < apply_rank(b);
  });
  return objects;
}

std::vector<json::value> install_objects(const BundleOptions& options) {
  auto objects = resolve_kustomization(embedded_sources(), "deploy");
  if (!options.image.empty() || !options.pull_secret.empty()) {
    bool replaced = false;
    for (auto& object : objects) {
      if (jsonkit::string_at(object, {"kind"}) != "Deployment" ||
          jsonkit::string_at(object, {"metadata", "name"}) != kManagerDeployment)
        continue;
      auto& pod = object.at_pointer("/spec/template/spec").as_object();
      for (auto& container : pod.at("containers").as_array())
        if (jsonkit::string_at(container, {"name"}) == kManagerContainer) {
          if (!options.image.empty()) container.as_object()["image"] = options.image;
          replaced = true;
        }
      if (!options.pull_secret.empty())
        pod["imagePullSecrets"] = json::array{json::object{{"name", options.pull_secret}}};
    }
    if (!replaced)
      throw std::logic_error("deploy/ has no Deployment " + std::string(kManagerDeployment) +
                             " with a container named " + std::string(kManagerContainer));
  }
  return apply_order(std::move(objects));
}

std::string object_label(const json::value& object) {
  std::string kind = jsonkit::string_at(object, {"kind"});
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string api_version = jsonkit::string_at(object, {"apiVersion"});
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  return kind + (group.empty() ? "" : "." + group) + "/" +
         jsonkit::string_at(object, {"metadata", "name"});
}

bool is_custom_resource(const json::value& object) {
  return jsonkit::string_at(object, {"apiVersion"}).starts_with(std::string(kApiGroup) + "/");
}

}  // namespace nvcre::install
