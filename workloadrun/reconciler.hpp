#pragma once
// The WorkloadRun reconcile: a pure function from the observed run, the
// informer caches, live reads and the previous plan's outcome to a ReconcilePlan. It synthesizes
// the run's one Workflow (same name, controller owner = the run) through the shared build path,
// then mirrors that Workflow's phases and results. WorkloadRun has no finalizer.
#include "reconcile/contract.hpp"

namespace nvcre::workloadrun {

reconcile::Result reconcile_workloadrun(const reconcile::Context& context);

}  // namespace nvcre::workloadrun
