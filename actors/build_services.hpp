#pragma once
// A category build the controller's way: platform_detector (facts over the target's nodes) ->
// catalog_resolver (category -> WorkflowSpec) -> workflow_assembler (gang rewrite + validation, the
// Workflow), the same pure stages certification::build_category_workflow composes offline.
#include "actors/interfaces.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace nvcre::actors {

struct BuildReply {
  std::optional<reconcile::CategoryBuildAnswer> answer;  // the build, or a BuildFailure (an answer)
  std::string error;  // without an answer: why no service could answer (the pass retries)
};

// Answers `request` through the three services from inside `self`; `reply` is called once. The
// resolver and gang scheduler are picked from their pools by the request's key.
void ask_category_build(reconciler_actor::pointer self, const ServiceActors& services,
                        reconcile::CategoryBuildRequest request, std::chrono::milliseconds timeout,
                        std::function<void(BuildReply)> reply);

}  // namespace nvcre::actors
