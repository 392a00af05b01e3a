#pragma once
// Leader election as an actor: the blocking Lease loop (k8s::LeaderElector) runs on a detached
// actor of its own (actors/blocking_work.hpp) and its callbacks become `leading` messages to the
// controllers, so only the leader writes. A new term starts with a fresh full list of every watched
// kind (the reflectors' relist): a standby's watches can lag the predecessor's last writes, and a
// reconcile on that view re-creates what was just deleted. Losing the lease after leading calls
// `on_lost` (the manager then exits, as controller-runtime does: a deposed leader must not keep
// writing). Exiting the actor cuts short the election's request in flight and releases the lease
// with one write bounded by a few seconds (graceful shutdown) unless `abandon_on_exit` (crash
// simulation in tests).
#include "actors/interfaces.hpp"
#include "actors/reflector.hpp"
#include "k8s/leader_elector.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace nvcre::actors {

using leader_elector_actor =
    caf::typed_actor<caf::replies_to<is_leader_atom>::with<bool>,
                     caf::reacts_to<leading_atom, std::uint64_t>>;  // from the loop: term began

struct LeaderElectorActorConfig {
  std::shared_ptr<k8s::RestClient> client;
  k8s::LeaderElectionConfig election;
  std::vector<controller_actor> controllers;
  std::vector<reflector_actor> reflectors;  // relisted before the controllers hear they lead
  // How long a new term waits for the relists; past it the controllers lead on the view they have.
  std::chrono::milliseconds relist_bound = std::chrono::seconds(30);
  std::function<void()> on_lost;  // called on the election thread
  bool abandon_on_exit = false;
};

// The current term, shared by the election loop (which starts and ends terms) and the actor
// (which announces a term once its relists are done): the announcements happen under the mutex,
// so a term's late "leading" can never reach a controller after the "not leading" that ended it.
struct LeadershipTerm {
  std::mutex mutex;
  std::uint64_t number = 0;  // bumped when leading starts and when it stops
};

struct LeaderElectorState {
  std::shared_ptr<k8s::LeaderElector> elector;
  std::shared_ptr<LeadershipTerm> term;
  static inline const char* name = "leader_elector";
};

leader_elector_actor::behavior_type leader_elector(
    leader_elector_actor::stateful_pointer<LeaderElectorState> self,
    LeaderElectorActorConfig config);

leader_elector_actor spawn_leader_elector(caf::actor_system& system,
                                          LeaderElectorActorConfig config);

}  // namespace nvcre::actors
