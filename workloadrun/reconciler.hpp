#pragma once
// The WorkloadRun reconcile (controllers.md §7): a pure function from the observed run, the
// informer caches, live reads and the previous plan's outcome to a ReconcilePlan. It synthesizes
// the run's one Workflow (same name, controller owner = the run) through the shared build path,
// then mirrors that Workflow's phases and results. WorkloadRun has no finalizer.
#include <boost/json/value.hpp>

#include <optional>

#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

namespace nvcre::workloadrun {

struct WorkloadRunReconcileInput {
  const boost::json::value* object = nullptr;  // the cached WorkloadRun; nullptr: gone, nothing to do
  const k8s::CacheView& cache;                  // Workflows (nvcre.nvidia.com/v1alpha1) and Nodes (v1)
  const k8s::LiveReads& live;                   // answers to this reconcile's earlier LiveGets
  const std::optional<k8s::ActionOutcome>& outcome;  // the previous plan's failed action
  k8s::Clock::time_point now;
};

k8s::ReconcilePlan reconcile_workloadrun(const WorkloadRunReconcileInput& input);

}  // namespace nvcre::workloadrun
