// `nvcrectl setup reset`: the [cr], [install] and [deps] phases.
#include "cli/setup_cluster.hpp"
#include "cli/setup_command.hpp"
#include "install/bundle.hpp"
#include "install/phases.hpp"
#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <thread>

namespace nvcre::cli {
namespace json = boost::json;
namespace {

const k8s::ResourceRef kNamespaces{"", "v1", "namespaces", false};

struct CustomKind {
  std::string kind;
  k8s::ResourceRef ref;
};

// The kinds of the nvcre.nvidia.com CRDs in the cluster at their served version, LogProfiles aside
// (they are part of the install, removed by the [install] phase).
std::vector<CustomKind> nvcre_kinds(k8s::RestClient& client) {
  std::vector<CustomKind> kinds;
  for (const auto& crd : setup::list_items(client, setup::kCrds, "")) {
    if (jsonkit::string_at(crd, {"spec", "group"}) != install::kApiGroup) continue;
    const std::string kind = jsonkit::string_at(crd, {"spec", "names", "kind"});
    if (kind == "LogProfile") continue;
    const auto* versions = jsonkit::value_at(crd, {"spec", "versions"});
    std::string version;
    if (versions != nullptr && versions->is_array())
      for (const auto& v : versions->as_array())
        if (version.empty() && jsonkit::value_at(v, {"served"}) != nullptr &&
            v.at("served") == true)
          version = jsonkit::string_at(v, {"name"});
    if (version.empty()) continue;
    kinds.push_back({kind,
                     {std::string(install::kApiGroup), version,
                      jsonkit::string_at(crd, {"spec", "names", "plural"}),
                      jsonkit::string_at(crd, {"spec", "scope"}) == "Namespaced"}});
  }
  std::sort(kinds.begin(), kinds.end(),
            [](const auto& a, const auto& b) { return a.ref.resource < b.ref.resource; });
  return kinds;
}

std::vector<std::string> remaining(k8s::RestClient& client, const std::vector<CustomKind>& kinds) {
  std::vector<std::string> left;
  for (const auto& kind : kinds)
    for (const auto& item : setup::list_items(client, kind.ref, ""))
      left.push_back(setup::describe(kind.kind, item));
  return left;
}

// [cr]: delete every nvcre custom resource while the controller still runs, so their finalizers
// (child cleanup) run; fails when some remain after the timeout.
void delete_custom_resources(k8s::RestClient& client, std::chrono::seconds timeout,
                             std::ostream& err) {
  err << "[cr] Deleting nvcre custom resources...\n";
  const auto kinds = nvcre_kinds(client);
  if (remaining(client, kinds).empty()) {
    err << "[cr] No nvcre custom resources found.\n";
    return;
  }
  for (const auto& kind : kinds) {
    for (const auto& item : setup::list_items(client, kind.ref, "")) {
      const std::string label = setup::describe(kind.kind, item);
      if (jsonkit::value_at(item, {"metadata", "deletionTimestamp"}) != nullptr) {
        err << "  " << label << " already terminating\n";
        continue;
      }
      try {
        client.remove(kind.ref, jsonkit::string_at(item, {"metadata", "namespace"}),
                      jsonkit::string_at(item, {"metadata", "name"}));
        err << "  " << label << " deleted\n";
      } catch (const k8s::ApiError& error) {
        if (error.code != 404)
          err << "  Warning: failed to delete " << label << ": " << error.what() << "\n";
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = remaining(client, kinds);
    if (left.empty()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string names;
      for (const auto& name : left) names += (names.empty() ? "" : ", ") + name;
      throw std::runtime_error(
          "[cr] graceful cleanup did not complete within " + std::to_string(timeout.count()) +
          "s: " + names +
          " remain; their finalizers need the nvcre controller running (check 'kubectl -n nvcre "
          "get pods'), then re-run reset");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  err << "  All nvcre custom resources removed.\n";
}

// [install]: what init applied, in reverse order, the Namespace kept; then waits for the CRDs.
void delete_install(k8s::RestClient& client, std::ostream& err) {
  err << "[install] Removing the nvcre install...\n";
  auto objects = install::install_objects();
  std::reverse(objects.begin(), objects.end());
  k8s::ResourceMapper mapper(client);
  std::vector<std::string> crds;
  for (const auto& object : objects) {
    const std::string kind = jsonkit::string_at(object, {"kind"});
    if (kind == "Namespace") continue;
    if (kind == "CustomResourceDefinition")
      crds.push_back(jsonkit::string_at(object, {"metadata", "name"}));
    k8s::ResourceRef ref;
    try {
      ref = mapper.resource_for(jsonkit::string_at(object, {"apiVersion"}), kind);
    } catch (const std::invalid_argument&) {
      continue;  // the kind is not served (its CRD is already gone): nothing of it is left
    }
    const std::string ns =
        ref.namespace_scoped ? jsonkit::string_at(object, {"metadata", "namespace"}) : "";
    try {
      client.remove(ref, ns, jsonkit::string_at(object, {"metadata", "name"}));
      err << "  " << install::object_label(object) << " deleted\n";
    } catch (const k8s::ApiError& error) {
      if (error.code != 404)
        throw std::runtime_error("[install] delete " + install::object_label(object) + ": " +
                                 error.what());
    }
  }
  err << "  Waiting for CRDs to be fully removed...\n";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  for (;;) {
    bool gone = true;
    for (const auto& name : crds) gone = gone && !setup::get_object(client, setup::kCrds, "", name);
    if (gone) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      err << "  Warning: timed out waiting for CRD deletion.\n";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  err << "  All nvcre CRDs removed.\n";
}

// What reset leaves on purpose: the namespace (it may hold the users' own objects) and Kubeflow
// Trainer, which nvcrectl never installs.
std::vector<install::RetainedResource> retained(k8s::RestClient& client) {
  std::vector<install::RetainedResource> kept;
  const auto record = [&](const k8s::ResourceRef& ref, const std::string& name,
                          install::RetainedResource resource) {
    try {
      if (setup::get_object(client, ref, "", name)) kept.push_back(std::move(resource));
    } catch (const k8s::ApiError&) {
      resource.unverified = true;
      kept.push_back(std::move(resource));
    }
  };
  const std::string ns(install::kNamespace);
  record(kNamespaces, ns, {"Namespace " + ns, "kubectl delete namespace " + ns});
  record(
      setup::kCrds, "trainjobs." + std::string(install::kTrainerApiGroup),
      {"Kubeflow Trainer (not installed by nvcrectl)",
       "helm uninstall kubeflow-trainer --namespace " + std::string(install::kTrainerNamespace)});
  return kept;
}

}  // namespace

int run_setup_reset(const SetupOptions& options, std::istream& in, std::ostream& err) {
  err << "[preflight] Checking prerequisites...\n";
  const auto skip = install::parse_skip_phases(options.skip_phases, install::SetupCommand::Reset);
  auto client = connect(options.connection);
  if (!options.auto_approve) {
    const std::vector<install::PhaseInfo> phases = {
        {std::string(install::kPhaseCr), "nvcre custom resources"},
        {std::string(install::kPhaseInstall), "nvcre install (CRDs, manager, RBAC, LogProfiles)"},
        {std::string(install::kPhaseDeps), "Kubeflow Trainer (kept: nvcrectl never installs it)"}};
    if (!setup::confirm(in, err, client->config(), phases, skip)) {
      err << "\nReset cancelled.\n";
      return 0;
    }
    err << "\n";
  }
  try {
    if (skip.contains(std::string(install::kPhaseCr)))
      err << "[cr] Skipped.\n";
    else
      delete_custom_resources(*client, options.cr_timeout, err);
    if (skip.contains(std::string(install::kPhaseInstall)))
      err << "[install] Skipped.\n";
    else
      delete_install(*client, err);
    if (skip.contains(std::string(install::kPhaseDeps)))
      err << "[deps] Skipped.\n";
    else
      err << "[deps] Kubeflow Trainer is not managed by nvcrectl; keeping it.\n";
    err << install::render_retained(retained(*client));
  } catch (const k8s::TransportError& error) {
    throw std::runtime_error(describe_connection_failure(client->config(), error.what()));
  }
  err << "\nnvcre reset successfully.\n";
  return 0;
}

}  // namespace nvcre::cli
