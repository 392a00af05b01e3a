#pragma once
// The manager's actor system wiring: API server, event recorder, store, one reflector per watched
// kind, the build services (platform_detector, catalog_resolver, workflow_assembler), one
// controller per reconciled kind, and optionally the leader elector. Owned by the nvcre-manager
// binary and by the embedded demo / integration tests (kube-sim in-process).
#include "actors/messages.hpp"
#include "k8s/kubeconfig.hpp"
#include "k8s/leader_election.hpp"
#include "k8s/metrics.hpp"
#include "reconcile/contract.hpp"
#include "k8s/rest_client.hpp"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace caf {
class actor_system;
}
namespace nvcre::k8s {
class Metrics;
}

namespace nvcre::actors {

// A kind the manager lists and watches into its cache.
struct WatchSpec {
  k8s::ResourceRef resource;
  std::string api_version;
  std::string kind;
  std::string label_selector;
};

// Measurement controllers have their own concurrency (--measurement-max-concurrent-reconciles) and
// keep their reconcilers (and with them the sampling memo) longer between samples.
enum class ControllerClass { Workload, Measurement };

// A reconciled kind: For(kind), Owns(owned_kinds) through controller owner references.
struct ControllerSpec {
  std::string name;
  std::string api_version;
  std::string kind;
  std::vector<std::string> owned_kinds;
  reconcile::Function reconcile;
  std::function<std::vector<std::string>(const ChangeNotice&, const k8s::CacheView&)>
      extra_keys_for = {};
  ControllerClass controller_class = ControllerClass::Workload;
};

struct ManagerOptions {
  k8s::ClientConfig client;
  std::string user_agent =
      "nvcre";  // on every request: tells managers apart in audit logs and kube-sim stats
  std::string watch_namespace;  // "" = every namespace
  int max_concurrent_reconciles = 10;
  int measurement_max_concurrent_reconciles = 5;
  std::size_t api_workers = 8;
  // The CAF scheduler's worker threads (0: CAF's default, at least 4). Set it to the CPUs the
  // process may use: more workers than CPUs only hand messages between threads.
  std::size_t scheduler_threads = 0;
  std::size_t build_service_pool = 2;  // catalog resolvers and gang schedulers, each
  std::vector<WatchSpec> watches;
  std::vector<ControllerSpec> controllers;
  // Kinds whose objects project gauges (by kind), applied to `metrics` when it is set.
  std::map<std::string, k8s::GaugeProjection> gauge_projections;
  bool leader_elect = false;
  k8s::LeaderElectionConfig election;  // lease namespace/name/identity/durations
  bool abandon_lease_on_stop = false;  // tests: a crash leaves the lease for the standby to expire
  std::function<void()> on_leadership_lost;
  std::shared_ptr<k8s::Metrics> metrics;
  std::string instance;                                   // reportingInstance of events
  std::optional<std::chrono::seconds> max_watch_timeout;  // bound on a silent watch (prompt stop)
  // A top-level actor ended outside stop(): (its name, e.g. "store" or "controller/job", and its
  // exit reason as text), once per actor. Runs on an actor thread: record or signal, but never
  // call stop() from it (stop waits for that thread).
  std::function<void(const std::string& name, const std::string& reason)> on_actor_down = {};
};

class Manager {
 public:
  explicit Manager(ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  void start();  // spawns the actors on its own actor system
  void stop();   // stops every actor (releases the lease unless abandoning); idempotent
  bool synced() const;
  bool leading() const;  // true when election is off
  // Caches synced and no top-level actor has died: what /readyz reports.
  bool ready() const { return synced() && !failure(); }
  // The first top-level actor that died outside stop(), e.g. "store exited: <reason>".
  std::optional<std::string> failure() const;

  // Fault injection (tests, chaos runs): ends the top-level actor `name` (e.g. "store",
  // "controller/certification", "reflector/v1/Node", "api_client", "leader_elector") as a crash
  // would, with exit_reason::kill carrying `reason`; the supervision then reports it like any
  // other death. False when no running top-level actor has that name.
  bool kill_actor(std::string_view name, std::string reason);
  std::vector<std::string> actor_names() const;  // every supervised top-level actor, in spawn order

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::actors
