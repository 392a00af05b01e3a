#pragma once
// A controller: the client-go work queue for one kind plus the supervisor of its per-key
// reconciler actors. It maps cache changes to keys (For / Owns), hands at most
// `max_concurrent` keys out at a time (one per key), turns pass results into queue decisions
// (requeueAfter, rate-limited retry, forget), restarts a crashed reconciler on its next turn with
// per-key backoff and reports the crash on the object, and reaps idle reconcilers.
#include "actors/interfaces.hpp"
#include "actors/shared_cache.hpp"
#include "reconcile/contract.hpp"
#include "k8s/work_queue.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::k8s {
class Metrics;
}

namespace nvcre::actors {

struct ControllerConfig {
  std::string name;  // "certification", "workflow", "job", "workloadrun"
  std::string api_version;
  std::string kind;
  reconcile::Function reconcile;
  // Keys ("namespace/name") a change should queue; default: For(kind) + Owns(owned_kinds).
  std::function<std::vector<std::string>(const ChangeNotice&)> keys_for;
  // Further keys found through the cache (e.g. Node -> Jobs of the pods bound to it).
  std::function<std::vector<std::string>(const ChangeNotice&, const k8s::CacheView&)>
      extra_keys_for;
  std::shared_ptr<const SharedCache> cache;
  api_client_actor api;
  event_recorder_actor recorder;
  ServiceActors services;
  int max_concurrent = 10;
  bool leading = true;  // false until the leader elector says so (when election is on)
  // An idle reconciler actor ends after `idle_reap` without a pass (its next pass spawns another:
  // idle actors cost memory, a spawn costs microseconds); the key's memo, which the controller
  // keeps for the next one, goes after `memo_kept` without a pass.
  std::chrono::milliseconds idle_reap{1000};
  std::chrono::seconds memo_kept{60};
  std::function<k8s::Clock::time_point()> clock = [] { return k8s::Clock::now(); };
  std::shared_ptr<k8s::Metrics> metrics;  // optional
};

// For(kind) + Owns(each owned kind through its controller owner reference).
std::function<std::vector<std::string>(const ChangeNotice&)> for_and_owns(
    std::string kind, std::vector<std::string> owned_kinds);

struct ControllerState {
  ControllerConfig config;
  k8s::WorkQueue queue;
  struct Slot {
    reconciler_actor actor;
    bool busy = false;
    std::uint64_t pass_id = 0;  // answers of an abandoned pass (crashed actor) are ignored
    std::chrono::steady_clock::time_point last_used;
    boost::json::value memo;  // the last pass's memo, while no actor holds it
  };
  std::map<std::string, Slot> reconcilers;  // keys with a live reconciler or a kept memo
  std::map<caf::actor_addr, std::string> key_by_actor;  // every live reconciler, reaped ones too
  std::size_t in_flight = 0;
  std::uint64_t next_pass_id = 0;
  bool synced = false;
  std::optional<std::chrono::steady_clock::time_point> timer_at;
  ControllerStats stats;
  static inline const char* name = "controller";
};

controller_actor::behavior_type controller(controller_actor::stateful_pointer<ControllerState> self,
                                           ControllerConfig config);

}  // namespace nvcre::actors
