#include "actors/workflow_assembler.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {

workflow_assembler_actor::behavior_type workflow_assembler(
    workflow_assembler_actor::stateful_pointer<WorkflowAssemblerState> self,
    WorkflowAssemblerConfig config) {
  self->state.config = std::move(config);
  return {
      [=](assemble_atom, const api::Certification& certification,
          certification::ResolvedCategory& resolved)
          -> caf::result<certification::CategoryBuildAnswer> {
        try {
          return self->state.config.assemble(certification, std::move(resolved));
        } catch (const std::exception& error) {
          // A service that throws stays up; the asking reconcile gets the error and retries.
          return caf::make_error(caf::sec::runtime_error,
                                 std::string("workflow_assembler: ") + error.what());
        }
      },
  };
}

workflow_assembler_actor spawn_workflow_assembler(caf::actor_system& system,
                                                  WorkflowAssemblerConfig config) {
  return system.spawn(workflow_assembler, std::move(config));
}

}  // namespace nvcre::actors
