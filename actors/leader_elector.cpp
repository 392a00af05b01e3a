#include "actors/leader_elector.hpp"

#include "actors/blocking_work.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

namespace nvcre::actors {
namespace {

// How long the last try at releasing the Lease may take on stop: an unreachable server costs the
// exit this much, after which a standby waits out the lease duration instead.
constexpr std::chrono::milliseconds kLeaseReleaseTimeout{3000};

void announce(const std::vector<controller_actor>& controllers, bool leading) {
  for (const auto& controller : controllers)
    caf::anon_send(controller, leading_atom::value, leading);
}

// The election's callbacks, on the election loop: a started term goes to the actor (which relists,
// then announces it); a stopped one is announced at once, and after leading calls `on_lost`.
k8s::LeaderElectorOptions election_options(const LeaderElectorActorConfig& config,
                                           std::shared_ptr<LeadershipTerm> term,
                                           caf::actor_addr elector) {
  k8s::LeaderElectorOptions options;
  options.election = config.election;
  options.callbacks.on_started_leading = [term, elector, identity = config.election.identity] {
    spdlog::info("leader election: {} is now the leader", identity);
    std::uint64_t number = 0;
    {
      std::lock_guard lock(term->mutex);
      number = ++term->number;
    }
    if (auto actor = caf::actor_cast<leader_elector_actor>(elector))
      caf::anon_send(actor, leading_atom::value, number);
  };
  options.callbacks.on_stopped_leading = [term, controllers = config.controllers,
                                          on_lost = config.on_lost,
                                          identity = config.election.identity] {
    spdlog::warn("leader election: {} stopped leading", identity);
    {
      std::lock_guard lock(term->mutex);
      ++term->number;
      announce(controllers, false);
    }
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

// Tells the controllers they lead in term `number` once every reflector has relisted (or failed
// to within the bound), unless the term has ended meanwhile.
void begin_term(leader_elector_actor::stateful_pointer<LeaderElectorState> self,
                const LeaderElectorActorConfig& config, std::uint64_t number) {
  struct Progress {
    std::size_t left = 0;
    std::size_t failed = 0;
    std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
  };
  auto progress = std::make_shared<Progress>();
  progress->left = config.reflectors.size();
  auto finish = [term = self->state.term, controllers = config.controllers, number, progress] {
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - progress->began);
    std::lock_guard lock(term->mutex);
    if (term->number != number) return;  // leading stopped while the lists ran
    if (progress->failed == 0) {
      spdlog::info("leader election: caches relisted in {} ms; controllers lead", took.count());
    } else {
      spdlog::warn(
          "leader election: {} of the caches could not be relisted in {} ms; the "
          "controllers lead on what the watches have delivered",
          progress->failed, took.count());
    }
    announce(controllers, true);
  };
  if (progress->left == 0) return finish();
  auto one_done = [progress, finish](bool ok) {
    if (!ok) ++progress->failed;
    if (--progress->left == 0) finish();
  };
  for (const auto& reflector : config.reflectors) {
    self->request(reflector, config.relist_bound, relist_atom::value)
        .then([one_done](bool) { one_done(true); },
              [one_done](caf::error& error) {
                spdlog::warn("leader election: relisting a cache failed: {}", to_string(error));
                one_done(false);
              });
  }
}

}  // namespace

leader_elector_actor::behavior_type leader_elector(
    leader_elector_actor::stateful_pointer<LeaderElectorState> self,
    LeaderElectorActorConfig config) {
  self->state.term = std::make_shared<LeadershipTerm>();
  auto elector = std::make_shared<k8s::LeaderElector>(
      *config.client, election_options(config, self->state.term, self->address()));
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
      [=](leading_atom, std::uint64_t number) { begin_term(self, config, number); },
  };
}

leader_elector_actor spawn_leader_elector(caf::actor_system& system,
                                          LeaderElectorActorConfig config) {
  return system.spawn(leader_elector, std::move(config));
}

}  // namespace nvcre::actors
