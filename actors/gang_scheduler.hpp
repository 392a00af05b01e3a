#pragma once
// The gang_scheduler: the gang-scheduling rewrite and validation of a resolved category, and its
// Workflow object (certification::assemble_for_request). A refusal (GangSchedulingConflict) is an
// answer, an unexpected exception an error reply; the actor stays up either way.
#include "actors/interfaces.hpp"

#include <functional>

namespace nvcre::actors {

struct GangSchedulerConfig {
  // The pure stage it runs (tests substitute a failing one).
  std::function<certification::CategoryBuildAnswer(const api::Certification&, certification::ResolvedCategory)>
      assemble = certification::assemble_for_request;
};

struct GangSchedulerState {
  GangSchedulerConfig config;
  static inline const char* name = "gang_scheduler";
};

gang_scheduler_actor::behavior_type gang_scheduler(gang_scheduler_actor::stateful_pointer<GangSchedulerState> self,
                                                   GangSchedulerConfig config);

gang_scheduler_actor spawn_gang_scheduler(caf::actor_system& system, GangSchedulerConfig config = {});

}  // namespace nvcre::actors
