#include "actors/gang_scheduler.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {

gang_scheduler_actor::behavior_type gang_scheduler(gang_scheduler_actor::stateful_pointer<GangSchedulerState> self,
                                                   GangSchedulerConfig config) {
  self->state.config = std::move(config);
  return {
      [=](gang_atom, const api::Certification& certification,
          certification::ResolvedCategory& resolved) -> caf::result<certification::CategoryBuildAnswer> {
        try {
          return self->state.config.assemble(certification, std::move(resolved));
        } catch (const std::exception& error) {
          // A service that throws stays up; the asking reconcile gets the error and retries.
          return caf::make_error(caf::sec::runtime_error, std::string("gang_scheduler: ") + error.what());
        }
      },
  };
}

gang_scheduler_actor spawn_gang_scheduler(caf::actor_system& system, GangSchedulerConfig config) {
  return system.spawn(gang_scheduler, std::move(config));
}

}  // namespace nvcre::actors
