#include "cli/setup_cluster.hpp"

#include "install/bundle.hpp"
#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <istream>
#include <ostream>
#include <thread>

namespace nvcre::cli::setup {
namespace json = boost::json;

const k8s::ResourceRef kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};

namespace {

const k8s::ResourceRef kDeployments{"apps", "v1", "deployments", true};
const k8s::ResourceRef kNodes{"", "v1", "nodes", false};
const k8s::ResourceRef kServices{"", "v1", "services", true};
const k8s::ResourceRef kLogProfiles{"nvcre.nvidia.com", "v1alpha1", "logprofiles", false};

}  // namespace

std::vector<json::value> list_items(k8s::RestClient& client, const k8s::ResourceRef& ref,
                                    const std::string& ns, const k8s::ListOptions& options) {
  std::vector<json::value> out;
  try {
    json::value list = client.list(ref, ns, options);
    if (auto* items = list.as_object().if_contains("items"); items && items->is_array())
      for (auto& item : items->as_array()) out.push_back(std::move(item));
  } catch (const k8s::ApiError&) {
  }
  return out;
}

std::optional<json::value> get_object(k8s::RestClient& client, const k8s::ResourceRef& ref,
                                      const std::string& ns, const std::string& name) {
  try {
    return client.get(ref, ns, name);
  } catch (const k8s::ApiError& error) {
    if (error.code == 404) return std::nullopt;
    throw;
  }
}

install::ClusterObservation observe_cluster(k8s::RestClient& client) {
  install::ClusterObservation observed;
  observed.crds = list_items(client, kCrds, "");
  observed.nvcre_deployments = list_items(client, kDeployments, std::string(install::kNamespace));
  try {
    observed.trainer_deployment =
        get_object(client, kDeployments, std::string(install::kTrainerNamespace),
                   std::string(install::kTrainerDeployment));
  } catch (const k8s::ApiError&) {
  }
  observed.log_profiles = list_items(client, kLogProfiles, "");
  k8s::ListOptions gpu;
  gpu.label_selector = std::string(install::kGpuPresentLabel) + "=true";
  observed.gpu_nodes = list_items(client, kNodes, "", gpu).size();
  try {
    observed.dcgm_service = get_object(client, kServices, std::string(install::kDcgmNamespace),
                                       std::string(install::kDcgmService))
                                ? install::Presence::Present
                                : install::Presence::Absent;
  } catch (const k8s::ApiError&) {
    observed.dcgm_service = install::Presence::Unknown;
  }
  return observed;
}

std::vector<std::string> shipped_names(const std::vector<json::value>& objects,
                                       std::string_view kind) {
  std::vector<std::string> names;
  for (const auto& object : objects)
    if (jsonkit::string_at(object, {"kind"}) == kind)
      names.push_back(jsonkit::string_at(object, {"metadata", "name"}));
  return names;
}

std::string apply_object(k8s::RestClient& client, k8s::ResourceMapper& mapper,
                         const json::value& object) {
  const std::string api_version = jsonkit::string_at(object, {"apiVersion"});
  const std::string kind = jsonkit::string_at(object, {"kind"});
  const std::string name = jsonkit::string_at(object, {"metadata", "name"});
  const k8s::ResourceRef ref = mapper.resource_for(api_version, kind);
  const std::string ns =
      ref.namespace_scoped ? jsonkit::string_at(object, {"metadata", "namespace"}) : "";
  const bool existed = get_object(client, ref, ns, name).has_value();
  k8s::RestRequest request;
  request.method = "PATCH";
  request.path = k8s::RestClient::path_for(ref, ns, name);
  request.query = {{"fieldManager", std::string(install::kFieldManager)}, {"force", "true"}};
  request.content_type = "application/apply-patch+yaml";  // JSON is YAML
  request.body = json::serialize(object);
  client.request(request);
  return existed ? "configured" : "created";
}

bool wait_established(k8s::RestClient& client, const std::vector<std::string>& names,
                      std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    bool all = true;
    for (const auto& name : names) {
      auto crd = get_object(client, kCrds, "", name);
      all = all && crd && install::crd_established(*crd);
    }
    if (all) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

bool confirm(std::istream& in, std::ostream& err, const k8s::ClientConfig& config,
             const std::vector<install::PhaseInfo>& phases, const std::set<std::string>& skip) {
  err << install::render_confirmation(config.source, config.server, phases, skip);
  err << "  Enter a value: " << std::flush;
  std::string answer;
  if (!std::getline(in, answer)) return false;
  return install::is_confirmed(answer);
}

std::string describe(const std::string& kind, const json::value& object) {
  const std::string ns = jsonkit::string_at(object, {"metadata", "namespace"});
  return kind + "/" + jsonkit::string_at(object, {"metadata", "name"}) +
         (ns.empty() ? "" : " (namespace: " + ns + ")");
}

}  // namespace nvcre::cli::setup
