#pragma once
// Records events.k8s.io/v1 Events through the API-server actor, fire-and-forget: a failed event
// write is counted and logged, never retried into the reconcile path (client-go drops too).
#include "actors/interfaces.hpp"
#include "k8s/event_builder.hpp"

#include <functional>

namespace nvcre::actors {

struct EventRecorderConfig {
  api_client_actor api;
  k8s::EventSource source;
  std::function<k8s::Clock::time_point()> clock = [] { return k8s::Clock::now(); };
};

event_recorder_actor spawn_event_recorder(caf::actor_system& system, EventRecorderConfig config);

}  // namespace nvcre::actors
