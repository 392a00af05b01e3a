#include "workflow/workflow_reconciler.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"

#include "api/conditions.hpp"
#include "overrides/overrides.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::workflow {
namespace json = boost::json;
using detail::Pass;

namespace {

k8s::ReconcilePlan add_finalizer(const json::value& object, const api::Workflow& workflow) {
  k8s::ReconcilePlan plan;
  plan.actions.push_back(
      k8s::add_finalizer_patch({std::string(api::kApiVersion), "Workflow",
                                workflow.metadata.namespace_, workflow.metadata.name},
                               object, kWorkflowFinalizer));
  return plan;
}

// The placement the resolved overrides leave in effect: the spec's, replaced by each applied
// override that sets one (list order, last wins).
std::string resolved_placement(const WorkflowExtras& extras,
                               const std::vector<api::AppliedOverride>& applied) {
  std::string placement = extras.placement;
  for (const auto& entry : applied) {
    auto it = extras.override_placements.find(static_cast<std::size_t>(entry.index));
    if (it != extras.override_placements.end()) placement = it->second;
  }
  return placement;
}

// The untracked re-application with the detection cached in status (first pass: none).
// Upstream passes no nodes here, so topology.domainCount reads 0 and `when.config` never matches.
bool apply_untracked_overrides(Pass& pass) {
  const auto& orch = pass.status.orchestration;
  overrides::MatchContext context =
      overrides::match_context_for(pass.doc.workflow.spec, orch ? orch->detectedPlatform : "",
                                   orch ? orch->detectedGPUArchitecture : "", 0);
  context.config = nullptr;
  try {
    overrides::ResolvedOverrides resolved =
        overrides::resolve_overrides(pass.doc.workflow.spec, context);
    resolved.spec.dependencies =
        overrides::select_dependencies(resolved.spec.dependencies, context);
    pass.spec = std::move(resolved.spec);
    pass.extras.placement = resolved_placement(pass.doc.extras, resolved.applied);
    return true;
  } catch (const overrides::OverrideError& error) {
    pass.fail(overrides::kOverrideErrorReason, overrides::override_failure_message(error));
    pass.set_error(error.what());
    return false;
  }
}

// A checkpointed Job needs its PVC among the dependencies.
bool checkpoint_pvc_declared(Pass& pass) {
  const auto& checkpoint = pass.spec.jobTemplate.spec.checkpoint;
  if (!checkpoint) return true;
  for (const auto& dependency : pass.spec.dependencies) {
    const json::value* kind = dependency.resource.if_contains("kind");
    const json::string* name =
        jsonkit::find_string(jsonkit::find_object(dependency.resource, {"metadata"}), "name");
    if (kind != nullptr && *kind == "PersistentVolumeClaim" && name != nullptr &&
        *name == checkpoint->pvcName) {
      return true;
    }
  }
  pass.fail("CheckpointPVCMissing",
            "Checkpoint requires PVC \"" + checkpoint->pvcName + "\" in dependencies");
  return false;
}

void run_groups(Pass& pass) {
  auto& orch = pass.orch();
  const bool any_running =
      std::any_of(orch.groups.begin(), orch.groups.end(), detail::group_running);
  if (any_running) detail::update_running_groups(pass);
  if (pass.waiting_for_live() || pass.has_error() || api::is_terminal(pass.status.conditions))
    return;
  const bool all_terminal =
      !orch.groups.empty() &&
      std::all_of(orch.groups.begin(), orch.groups.end(), detail::group_terminal);
  if (all_terminal) {
    // The iteration closes in the pass that saw its last group finish, in the same status write,
    // unless that pass already spent its one create (a failed-nodes ConfigMap): then the groups
    // are written first and the iteration closes on the next pass.
    detail::complete_iteration(pass);
    return;
  }
  detail::launch_pending_groups(pass);
  pass.requeue(k8s::kDefaultRequeue);
}

}  // namespace

namespace {

k8s::ReconcilePlan plan_workflow(const reconcile::Context& input) {
  if (input.object == nullptr) return {};
  WorkflowDocument doc;
  try {
    doc = read_workflow(*input.object);
  } catch (const api::DecodeError& error) {
    k8s::ReconcilePlan plan;
    plan.error = std::string("decoding Workflow: ") + error.what();
    return plan;
  }
  const api::Workflow& workflow = doc.workflow;
  if (!workflow.metadata.deletionTimestamp.empty()) return detail::reconcile_deletion(input, doc);
  const auto& finalizers = workflow.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kWorkflowFinalizer) == finalizers.end())
    return add_finalizer(*input.object, workflow);
  if (workflow.status && api::is_terminal(workflow.status->conditions))
    return {};  // never restarts itself
  const k8s::ObjectRef self{std::string(api::kApiVersion), "Workflow", workflow.metadata.namespace_,
                            workflow.metadata.name};
  if (input.outcome && input.outcome->action.verb != k8s::ActionVerb::Create &&
      !detail::is_own_conflict(*input.outcome, self)) {
    k8s::ReconcilePlan plan;
    plan.error = detail::describe_outcome(*input.outcome);
    return plan;
  }

  Pass pass(input, std::move(doc));
  pass.orch();
  if (!apply_untracked_overrides(pass) || !checkpoint_pvc_declared(pass)) return pass.finish();
  if (pass.orch().totalGroups == 0) {
    detail::discover_and_partition(pass);
    return pass.finish();
  }
  if (detail::ensure_workflow_dependencies(pass)) run_groups(pass);
  return pass.finish();
}

}  // namespace

reconcile::Result reconcile_workflow(const reconcile::Context& context) {
  return {plan_workflow(context), {}, {}};
}

}  // namespace nvcre::workflow
