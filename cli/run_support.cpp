#include "cli/run_support.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <ostream>
#include <stdexcept>
#include <thread>

namespace nvcre::cli {
namespace json = boost::json;

bool ensure_namespace(k8s::RestClient& client, const std::string& ns, std::ostream& err) {
  try {
    client.get(kNamespaces, "", ns);
    return false;
  } catch (const k8s::ApiError& error) {
    if (!k8s::is_not_found(error))
      throw std::runtime_error("get namespace " + ns + ": " + error.what());
  }
  const json::value object = json::object{
      {"apiVersion", "v1"},
      {"kind", "Namespace"},
      {"metadata", {{"name", ns}, {"labels", {{"app.kubernetes.io/created-by", "nvcrectl"}}}}}};
  try {
    client.create(kNamespaces, "", object);
  } catch (const k8s::ApiError& error) {
    if (k8s::is_already_exists(error)) return false;  // a concurrent run made it: not ours
    throw std::runtime_error("create namespace " + ns + ": " + error.what());
  }
  err << "Created namespace " << ns << ".\n";
  return true;
}

bool apply_pull_secret(k8s::RestClient& client, const std::string& ns, const std::string& name,
                       const RegistryFlags& registry, std::ostream& err) {
  json::value secret = pull_secret(name, ns, registry);
  bool created = true;
  try {
    client.create(kSecrets, ns, secret);
  } catch (const k8s::ApiError& error) {
    if (!k8s::is_already_exists(error))
      throw std::runtime_error("create image pull secret: " + std::string(error.what()));
    created = false;
    try {
      json::value current = client.get(kSecrets, ns, name);
      current.as_object()["data"] = secret.at("data");
      current.as_object()["type"] = secret.at("type");
      client.update(kSecrets, ns, current);
    } catch (const k8s::ApiError& update_error) {
      throw std::runtime_error("create image pull secret: " + std::string(update_error.what()));
    }
  }
  err << "Created image pull secret \"" << name << "\" in namespace " << ns << ".\n";
  return created;
}

void own_pull_secret(k8s::RestClient& client, const std::string& ns, const std::string& secret,
                     const json::value& owner, std::ostream& err) {
  json::value object;
  try {
    object = client.get(kSecrets, ns, secret);
  } catch (const std::exception& error) {
    err << "Warning: could not retrieve pull secret \"" << secret
        << "\" to set OwnerReference: " << error.what() << "\n";
    return;
  }
  auto& metadata = object.as_object()["metadata"].as_object();
  if (!metadata.contains("ownerReferences")) metadata["ownerReferences"] = json::array();
  metadata["ownerReferences"].as_array().push_back(
      json::object{{"apiVersion", jsonkit::string_at(owner, {"apiVersion"})},
                   {"kind", jsonkit::string_at(owner, {"kind"})},
                   {"name", jsonkit::string_at(owner, {"metadata", "name"})},
                   {"uid", jsonkit::string_at(owner, {"metadata", "uid"})}});
  try {
    client.update(kSecrets, ns, object);
  } catch (const std::exception& error) {
    err << "Warning: could not set OwnerReference on pull secret \"" << secret
        << "\"; it will not be deleted with its owner: " << error.what() << "\n";
  }
}

void Cleanup::created(const k8s::ResourceRef& resource, const std::string& ns,
                      const std::string& name, const std::string& kind) {
  objects_.push_back({resource, ns, name, kind});
}

void Cleanup::wait_also(const k8s::ResourceRef& resource, const std::string& ns,
                        const std::string& name) {
  objects_.push_back({resource, ns, name, ""});
}

bool Cleanup::wait_gone(const Object& object) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    try {
      client_.get(object.resource, object.ns, object.name);
    } catch (const k8s::ApiError& error) {
      if (k8s::is_not_found(error)) return true;
    } catch (const std::exception&) {
      // Unreachable for a moment: keep asking until the limit.
    }
    std::this_thread::sleep_for(poll);
  }
  err_ << "[cleanup] Timed out waiting for deletion.\n";
  return false;
}

void Cleanup::run() noexcept {
  if (!enabled_ || done_) return;
  done_ = true;
  try {
    err_ << "[cleanup] Cleaning up...\n" << std::flush;
    bool warnings = false;
    for (const auto& object : objects_) {
      if (!object.kind.empty()) {
        err_ << "[cleanup] Deleting " << object.kind << "...\n" << std::flush;
        try {
          client_.remove(object.resource, object.ns, object.name);
        } catch (const k8s::ApiError& error) {
          if (!k8s::is_not_found(error)) {
            err_ << "[cleanup] Warning: failed to delete " << object.kind << ": " << error.what()
                 << "\n";
            warnings = true;
            continue;
          }
        }
      }
      warnings = !wait_gone(object) || warnings;
    }
    if (!namespace_.empty()) {
      err_ << "[cleanup] Deleting namespace " << namespace_ << "...\n" << std::flush;
      try {
        client_.remove(kNamespaces, "", namespace_);
        warnings = !wait_gone({kNamespaces, "", namespace_, ""}) || warnings;
      } catch (const k8s::ApiError& error) {
        if (!k8s::is_not_found(error)) {
          err_ << "[cleanup] Warning: failed to delete namespace " << namespace_ << ": "
               << error.what() << "\n";
          warnings = true;
        }
      }
    }
    if (finally_) warnings = !finally_() || warnings;
    err_ << (warnings ? "[cleanup] Done (with warnings).\n" : "[cleanup] Done.\n") << std::flush;
  } catch (const std::exception& error) {
    err_ << "[cleanup] Warning: " << error.what() << "\n[cleanup] Done (with warnings).\n";
  }
}

}  // namespace nvcre::cli
