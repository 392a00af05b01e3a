#include "actors/leader_elector.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <thread>

namespace nvcre::actors {
namespace {

struct LeaderElectorState {
  std::shared_ptr<k8s::LeaderElector> elector;
  static inline const char* name = "leader_elector";
};

}  // namespace

leader_elector_actor spawn_leader_elector(caf::actor_system& system, LeaderElectorActorConfig config) {
  return system.spawn([config = std::move(config)](leader_elector_actor::stateful_pointer<LeaderElectorState> self)
                          -> leader_elector_actor::behavior_type {
    auto controllers = config.controllers;
    auto identity = config.election.identity;
    auto announce = [controllers](bool leading) {
      for (const auto& controller : controllers) caf::anon_send(controller, leading_atom::value, leading);
    };
    k8s::LeaderElectorOptions options;
    options.election = config.election;
    options.callbacks.on_started_leading = [announce, identity] {
      spdlog::info("leader election: {} is now the leader", identity);
      announce(true);
    };
    options.callbacks.on_stopped_leading = [announce, on_lost = config.on_lost, identity] {
      spdlog::warn("leader election: {} stopped leading", identity);
      announce(false);
      if (on_lost) on_lost();
    };
    options.callbacks.on_new_leader = [](const std::string& leader) {
      spdlog::info("leader election: current leader is {}", leader);
    };
    options.callbacks.on_error = [](const std::string& message) { spdlog::warn("leader election: {}", message); };
    auto elector = std::make_shared<k8s::LeaderElector>(*config.client, std::move(options));
    self->state.elector = elector;
    config.threads->start([elector, client = config.client] {
      try {
        elector->run();
      } catch (const std::exception& error) {
        spdlog::error("leader election stopped: {}", error.what());
      }
    });
    auto mode = config.abandon_on_exit ? k8s::StopMode::Abandon : k8s::StopMode::Release;
    self->attach_functor([elector, mode] { elector->stop(mode); });
    return {
        [=](stats_atom) { return self->state.elector->is_leader(); },
    };
  });
}

}  // namespace nvcre::actors
