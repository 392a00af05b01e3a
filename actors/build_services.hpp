#pragma once
// A category build the controller's way: platform_detector (facts over the target's nodes) ->
// catalog_resolver (category -> WorkflowSpec) -> gang_scheduler (gang rewrite + validation, the
// Workflow), the same pure stages certification::build_category_workflow composes offline.
#include "actors/service_asker.hpp"

#include <chrono>

namespace nvcre::actors {

// Answers `request` through the three services from inside `self`: the build, a BuildFailure
// (an answer: the Certification fails), or an error when a service could not answer.
void ask_category_build(reconciler_actor::pointer self, const ServiceActors& services,
                        certification::CategoryBuildRequest request, std::chrono::milliseconds timeout,
                        std::function<void(ServiceReply)> reply);

// The Certification controller's ServiceAsker: its wants carry a CategoryBuildRequest and are
// answered with a CategoryBuildAnswer.
ServiceAsker category_build_asker(std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace nvcre::actors
