#pragma once
// What both `run` commands do around the object they create: the namespace, the registry pull
// secret (owned by the object, so garbage collection removes it), and the cleanup that deletes
// what this run created, waiting until it is gone, on every way out.
#include "cli/run_plan.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace nvcre::cli {

inline const k8s::ResourceRef kNamespaces{"", "v1", "namespaces", false};
inline const k8s::ResourceRef kSecrets{"", "v1", "secrets", true};

// Creates `ns` unless it exists; true when this run created it.
bool ensure_namespace(k8s::RestClient& client, const std::string& ns, std::ostream& err);

// Creates the pull secret, or updates one left by an earlier run of the same name; true when this
// run created it. Prints `Created image pull secret "<n>" in namespace <ns>.`.
bool apply_pull_secret(k8s::RestClient& client, const std::string& ns, const std::string& name,
                       const RegistryFlags& registry, std::ostream& err);

// Adds an ownerReference to `owner` (the created object, with its uid) on the secret, through a
// read-modify-write Update so existing owners are kept. Failures are warnings: the run goes on,
// the secret is then not collected with its owner.
void own_pull_secret(k8s::RestClient& client, const std::string& ns, const std::string& secret,
                     const boost::json::value& owner, std::ostream& err);

// Deletes, when destroyed (or on run()), what this run created: the objects in the order added,
// each waited for until it is gone (its finalizers need the controller), then the namespace.
// Prints `[cleanup] ...` lines. Disabled (does nothing) without --cleanup.
class Cleanup {
 public:
  Cleanup(k8s::RestClient& client, std::ostream& err, bool enabled)
      : client_(client), err_(err), enabled_(enabled) {}
  ~Cleanup() { run(); }
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;

  // `kind` names it in the messages ("certification"); `wait_also` are objects (e.g. the
  // WorkloadRun's Workflow) that must be gone too before the namespace goes.
  void created(const k8s::ResourceRef& resource, const std::string& ns, const std::string& name,
               const std::string& kind);
  void wait_also(const k8s::ResourceRef& resource, const std::string& ns, const std::string& name);
  void created_namespace(const std::string& ns) { namespace_ = ns; }
  // A last step once everything above is gone (the `setup reset` of --setup: the controller must
  // outlive the finalizers it runs); it returns false when it only partly worked.
  void finally(std::function<bool()> step) { finally_ = std::move(step); }
  void run() noexcept;

  std::chrono::milliseconds poll{1000};
  std::chrono::minutes limit{5};

 private:
  struct Object {
    k8s::ResourceRef resource;
    std::string ns;
    std::string name;
    std::string kind;  // "" for wait_also
  };
  bool wait_gone(const Object& object);

  k8s::RestClient& client_;
  std::ostream& err_;
  bool enabled_ = false;
  bool done_ = false;
  std::vector<Object> objects_;
  std::string namespace_;
  std::function<bool()> finally_;
};

}  // namespace nvcre::cli
