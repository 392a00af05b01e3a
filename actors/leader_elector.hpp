#pragma once
// Leader election as an actor: the blocking Lease loop (k8s::LeaderElector) runs on a detached
// actor of its own (actors/blocking_work.hpp) and its callbacks become `leading` messages to the
// controllers, so only the leader writes. Losing the lease after leading calls `on_lost` (the
// manager then exits, as controller-runtime does: a deposed leader must not keep writing). Exiting
// the actor cuts short the election's request in flight and releases the lease with one write
// bounded by a few seconds (graceful shutdown) unless `abandon_on_exit` (crash simulation in
// tests).
#include "actors/interfaces.hpp"
#include "k8s/leader_elector.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace nvcre::actors {

using leader_elector_actor = caf::typed_actor<caf::replies_to<is_leader_atom>::with<bool>>;

struct LeaderElectorActorConfig {
  std::shared_ptr<k8s::RestClient> client;
  k8s::LeaderElectionConfig election;
  std::vector<controller_actor> controllers;
  std::function<void()> on_lost;  // called on the election thread
  bool abandon_on_exit = false;
};

struct LeaderElectorState {
  std::shared_ptr<k8s::LeaderElector> elector;
  static inline const char* name = "leader_elector";
};

leader_elector_actor::behavior_type leader_elector(
    leader_elector_actor::stateful_pointer<LeaderElectorState> self,
    LeaderElectorActorConfig config);

leader_elector_actor spawn_leader_elector(caf::actor_system& system,
                                          LeaderElectorActorConfig config);

}  // namespace nvcre::actors
