#pragma once
// The Workflow controller's reconcile logic (diagnose mode included) as a pure
// function: the cached Workflow, the read-only caches (Nodes, Pods, Jobs, ConfigMaps, TrainJobs),
// live reads, the previous plan's failed action and `now` in; the plan out
// (k8s/reconcile_plan.hpp).
//
// How the imperative upstream flow maps onto plans:
//   - Every status change of a pass is one conditional MergePatchStatus ({metadata.resourceVersion,
//     status}) written after the pass's other actions, so a 409 re-plans from a fresh copy.
//   - A pass that launches groups creates every launchable group's job-scoped copies and Job, in
//     order, and records them (dependency refs, groups Running) in its one status write; any other
//     create is one per pass, followed by the status write that records it. A create that meets
//     AlreadyExists comes back as the outcome and is adopted (ours) or fails the Workflow with the
//     collision reason (foreign). When a later action of the plan fails, the re-plan knows the
//     creates that went through (Context::held) and adopts them instead of replaying them.
//   - Dependencies are read before they are deleted (ownership check, UID precondition): from the
//     cache when it holds them (watched kinds: TrainingRuntime and our ConfigMaps), else with a
//     LiveGet; a Job missing from the cache is confirmed live. A pass
//     that needed live reads launches nothing (it requeues at once); the one create such a pass may
//     still plan is the failed-nodes ConfigMap of the groups it completes or, when it completes the
//     last group and closes the iteration in the same status write, the succeeded-nodes ConfigMap.
//   - Assumption on the shell: within one pass, live reads already made stay available when the
//     reconcile is re-run with an outcome.
// A 409 on a conditional write is re-planned from the fresh copy; any other failed action except a
// Create comes back as an error (rate-limited requeue) and the next pass recomputes from the
// cluster.
//
// Not modelled here (the shell or later work): pod-log tails for timed-out Jobs, PV reclaim-policy
// handling of PVC dependencies, the DRA ResourceSlice product fallback, topology metrics.
#include "reconcile/contract.hpp"

namespace nvcre::workflow {

reconcile::Result reconcile_workflow(const reconcile::Context& context);

}  // namespace nvcre::workflow
