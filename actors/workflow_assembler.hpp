#pragma once
// The workflow_assembler: the gang-scheduling rewrite and validation of a resolved category, and
// its Workflow object (certification::assemble_for_request). A refusal (GangSchedulingConflict) is
// an answer, an unexpected exception an error reply; the actor stays up either way.
#include "actors/interfaces.hpp"

#include <functional>

namespace nvcre::actors {

struct WorkflowAssemblerConfig {
  // The pure stage it runs (tests substitute a failing one).
  std::function<certification::CategoryBuildAnswer(const api::Certification&,
                                                   certification::ResolvedCategory)>
      assemble = certification::assemble_for_request;
};

struct WorkflowAssemblerState {
  WorkflowAssemblerConfig config;
  static inline const char* name = "workflow_assembler";
};

workflow_assembler_actor::behavior_type workflow_assembler(
    workflow_assembler_actor::stateful_pointer<WorkflowAssemblerState> self,
    WorkflowAssemblerConfig config);

workflow_assembler_actor spawn_workflow_assembler(caf::actor_system& system,
                                                  WorkflowAssemblerConfig config = {});

}  // namespace nvcre::actors
