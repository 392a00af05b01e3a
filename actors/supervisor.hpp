#pragma once
// The supervisor: monitors the manager's top-level actors (API servers, event recorder, store,
// build services, reflectors, controllers, leader elector) under human names. None of them ends
// on its own while the manager runs, so a DOWN before the manager said `stopping` is a failure:
// reported through `on_down` with the actor's name and its exit reason as text. The manager then
// stops being ready, and the nvcre-manager binary exits non-zero so Kubernetes restarts it.
#include "actors/messages.hpp"

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <functional>
#include <map>
#include <string>

namespace caf {
class actor_system;
}

namespace nvcre::actors {

using supervisor_actor =
    caf::typed_actor<caf::reacts_to<supervise_atom, std::string, caf::actor>,  // monitor this actor
                                                                               // under this name
                     // The manager stops its actors: DOWNs from now on are expected, and the
                     // supervisor ends after the last of them. Answers once it holds.
                     caf::replies_to<stopping_atom>::with<bool>>;

struct SupervisorConfig {
  // (name, exit reason) of a supervised actor that ended outside a stop, once per actor. Runs on
  // the supervisor's thread: it records and signals, and never waits on the manager.
  std::function<void(const std::string&, const std::string&)> on_down;
};

struct SupervisorState {
  SupervisorConfig config;
  std::map<caf::actor_addr, std::string> names;  // supervised and not yet down
  bool stopping = false;
  static inline const char* name = "supervisor";
};

supervisor_actor::behavior_type supervisor(supervisor_actor::stateful_pointer<SupervisorState> self,
                                           SupervisorConfig config);

supervisor_actor spawn_supervisor(caf::actor_system& system, SupervisorConfig config);

// Ends `actor` with `reason` as an escaped exception would: for the blocking loop an actor owns
// (a reflector's list/watch, the leader election), whose unexpected end would otherwise leave the
// actor up and the cache or the lease silently stale, out of the supervisor's sight.
void fail_actor(const caf::actor_addr& actor, std::string reason);

}  // namespace nvcre::actors
