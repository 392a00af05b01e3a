#include "actors/leader_elector.hpp"

#include "actors/blocking_work.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace nvcre::actors {
namespace {

// How long the last try at releasing the Lease may take on stop: an unreachable server costs the
// exit this much, after which a standby waits out the lease duration instead.
constexpr std::chrono::milliseconds kLeaseReleaseTimeout{3000};

// The election's callbacks: log, tell every controller whether it leads, and on a lost lease after
// leading call `on_lost`.
k8s::LeaderElectorOptions election_options(const LeaderElectorActorConfig& config) {
  auto announce = [controllers = config.controllers](bool leading) {
    for (const auto& controller : controllers)
      caf::anon_send(controller, leading_atom::value, leading);
  };
  k8s::LeaderElectorOptions options;
  options.election = config.election;
  options.callbacks.on_started_leading = [announce, identity = config.election.identity] {
    spdlog::info("leader election: {} is now the leader", identity);
    announce(true);
  };
  options.callbacks.on_stopped_leading = [announce, on_lost = config.on_lost,
                                          identity = config.election.identity] {
    spdlog::warn("leader election: {} stopped leading", identity);
    announce(false);
    if (on_lost) on_lost();
  };
  options.callbacks.on_new_leader = [](const std::string& leader) {
    spdlog::info("leader election: current leader is {}", leader);
  };
  options.callbacks.on_error = [](const std::string& message) {
    spdlog::warn("leader election: {}", message);
  };
  return options;
}

}  // namespace

leader_elector_actor::behavior_type leader_elector(
    leader_elector_actor::stateful_pointer<LeaderElectorState> self,
    LeaderElectorActorConfig config) {
  auto elector = std::make_shared<k8s::LeaderElector>(*config.client, election_options(config));
  self->state.elector = elector;
  run_blocking_loop(self->system(), "leader election loop", self->address(),
                    [elector, client = config.client] { elector->run(); });
  auto mode = config.abandon_on_exit ? k8s::StopMode::Abandon : k8s::StopMode::Release;
  // The client ends the election's request in flight (a renewal to an unreachable server must
  // not hold up the exit by its timeout); the releasing write that follows gets a short bound.
  const auto release_timeout =
      mode == k8s::StopMode::Release ? kLeaseReleaseTimeout : std::chrono::milliseconds::zero();
  self->attach_functor([elector, mode, client = config.client, release_timeout] {
    elector->stop(mode);
    client->shutdown(release_timeout);
  });
  return {
      [=](is_leader_atom) { return self->state.elector->is_leader(); },
  };
}

leader_elector_actor spawn_leader_elector(caf::actor_system& system,
                                          LeaderElectorActorConfig config) {
  return system.spawn(leader_elector, std::move(config));
}

}  // namespace nvcre::actors
