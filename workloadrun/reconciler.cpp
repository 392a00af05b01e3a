#include "workloadrun/reconciler.hpp"
#include "k8s/meta.hpp"
#include "jsonkit/paths.hpp"

#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "reconcile/kit.hpp"
#include "workloadrun/build.hpp"
#include "workloadrun/reconcile_pass.hpp"
#include "platform/resource_slices.hpp"
#include "reconcile/resource_slices.hpp"
#include "workflow/node_discovery.hpp"
#include "workflow/workflow_document.hpp"

namespace nvcre::workloadrun {

namespace {

namespace reason = api::workloadrun_reason;
using detail::Pass;
using detail::StatusUpdate;
using jsonkit::string_at;

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

// ownedByPredecessor: the controller reference names an earlier WorkloadRun of this name (same
// name, other UID). That owner is gone by definition, so the garbage collector frees the name.
bool owned_by_predecessor(const boost::json::value& holder, const api::WorkloadRun& run) {
  const auto* owner = k8s::controller_reference(holder);
  return owner != nullptr && jsonkit::string_at(*owner, {"apiVersion"}) == api::kApiVersion &&
         jsonkit::string_at(*owner, {"kind"}) == api::WorkloadRun::kKind &&
         jsonkit::string_at(*owner, {"name"}) == run.metadata.name &&
         jsonkit::string_at(*owner, {"uid"}) != run.metadata.uid;
}

enum class CreateDecision { Adopt, Wait, Done };

// A Create that failed. Adopt falls through to recording the ref; Wait requeues;
// Done means the plan already says everything (an error, or the collision verdict).
CreateDecision judge_failed_create(Pass& pass, const k8s::ActionOutcome& outcome,
                                   const std::string& name) {
  const api::WorkloadRun& run = pass.run;
  if (!reconcile::is_already_exists(outcome)) {
    const std::string text = reconcile::outcome_text(outcome);
    pass.plan.error = "creating Workflow: " + text;
    StatusUpdate update(pass);
    // A fault a retry can cure is no verdict: say so where the user looks, retry with backoff.
    if (reconcile::is_transient(outcome)) {
      const std::string message = "Failed to create Workflow " + name + ": " + text + "; retrying";
      pass.plan.events.push_back(
          pass.event("Warning", api::workloadrun_event::kWorkflowCreationError, message));
      update.set_execution(api::kConditionInProgress,
                           api::workloadrun_event::kWorkflowCreationError, message);
      update.commit(pass, false);  // the Warning above says it
      return CreateDecision::Done;
    }
    // Refused (invalid, forbidden, bad request): the same Workflow is refused every time.
    const std::string message = "Failed to create Workflow " + name + ": " + text;
    pass.plan.events.push_back(
        pass.event("Warning", api::workloadrun_event::kWorkflowCreationError, message));
    update.set_execution(api::kConditionFailed, reason::kWorkflowFailed, message);
    update.commit(pass);
    return CreateDecision::Done;
  }
  if (!outcome.live_holder || outcome.live_holder->is_null()) {
    pass.plan.error =
        "getting existing Workflow " + name + ": " +
        (outcome.live_holder ? "workflows.nvcre.nvidia.com " + quoted(name) + " not found"
                             : std::string("the live read failed"));
    return CreateDecision::Done;
  }
  const auto& holder = *outcome.live_holder;
  const bool ours = k8s::is_controlled_by(holder, run.metadata.uid);
  const bool deleting = k8s::is_being_deleted(holder);
  // Terminating holders release the name soon, ours or not; so does a deleted predecessor's child.
  if (deleting || (!ours && owned_by_predecessor(holder, run))) return CreateDecision::Wait;
  if (ours) return CreateDecision::Adopt;
  StatusUpdate update(pass);
  update.set_execution(api::kConditionFailed, reason::kWorkflowNameCollision,
                       "Workflow " + quoted(name) + " already exists in namespace " +
                           quoted(run.metadata.namespace_) +
                           " and is not controlled by WorkloadRun " + quoted(run.metadata.name) +
                           "; refusing to adopt it");
  update.commit(pass);
  return CreateDecision::Done;
}

// Build the Workflow, create (or adopt) it, record the ref.
void create_workflow(Pass& pass) {
  const api::WorkloadRun& run = pass.run;
  BuildInput input;
  // Best-effort discovery for the GPU and platform defaults; the Workflow discovers
  // authoritatively.
  input.nodes = workflow::discover_target_nodes(pass.in.cache, run.spec.target).nodes;
  // DRA-only nodes carry no product label: their ResourceSlices name it (in memory only).
  const auto slices = reconcile::resource_slice_products(
      pass.in, pass.plan, platform::any_node_lacks_gpu_product(input.nodes));
  if (slices.waiting) return;
  platform::augment_gpu_product_labels(input.nodes, slices.products);
  WorkloadRunBuild build;
  try {
    build = build_workloadrun_workflow(run, input);
  } catch (const BuildError& error) {
    // The spec is immutable: the same build fails every time, so this is terminal.
    StatusUpdate update(pass);
    update.set_execution(api::kConditionFailed, error.reason, error.what());
    update.commit(pass);
    return;
  }
  const std::string& name = build.workflow.metadata.name;
  const auto target = reconcile::workflow_object_ref(run.metadata.namespace_, name);
  const auto& outcome = pass.in.outcome;
  if (outcome && outcome->action.verb == k8s::ActionVerb::Create &&
      outcome->action.target == target) {
    switch (judge_failed_create(pass, *outcome, name)) {
      case CreateDecision::Done:
        return;
      case CreateDecision::Wait:
        pass.plan.requeue_after = k8s::kDefaultRequeue;
        return;
      case CreateDecision::Adopt:
        break;
    }
  } else {
    boost::json::value workflow = api::encode_object(build.workflow);
    k8s::add_finalizer(workflow, workflow::kWorkflowFinalizer);
    pass.plan.actions.push_back(
        k8s::make_action(k8s::ActionVerb::Create, target, std::move(workflow)));
    // Only the pass whose Create succeeds reports the build's notices (events follow all actions).
    for (const auto& notice : build.events)
      pass.plan.events.push_back(pass.event(notice.type, notice.reason, notice.message));
  }
  // The ref goes in the same write as the condition, so a run never says "created" without it.
  StatusUpdate update(pass);
  update.status().workflowRef = api::WorkflowReference{name, run.metadata.namespace_};
  update.status().resolvedGpusPerNode = build.gpus_per_node;
  update.set_execution(api::kConditionInProgress, reason::kWorkflowCreated,
                       "Workflow " + name + " created");
  update.commit(pass);
  pass.plan.requeue_after = k8s::kDefaultRequeue;
}

}  // namespace

reconcile::Result reconcile_workloadrun(const reconcile::Context& input) {
  if (input.object == nullptr) return {};
  api::WorkloadRun run;
  try {
    run = api::decode_object<api::WorkloadRun>(*input.object);
  } catch (const std::exception& error) {
    return {reconcile::error_plan(std::string("decoding WorkloadRun: ") + error.what()), {}, {}};
  }
  Pass pass{{input, *input.object, k8s::object_ref_of(*input.object), {}}, std::move(run)};
  const auto& outcome = input.outcome;
  // A failed Create is judged where it was planned; a stale status write carries no decision (the
  // actor re-read the run); anything else is returned as the error upstream returns.
  if (outcome && outcome->action.verb != k8s::ActionVerb::Create &&
      !reconcile::is_stale_write(*outcome)) {
    const std::string text = reconcile::outcome_text(*outcome);
    pass.plan.error = outcome->action.verb == k8s::ActionVerb::LiveGet
                          ? "getting Workflow " + outcome->action.target.name + ": " + text
                          : "updating WorkloadRun status: " + text;
    return {std::move(pass.plan), {}, {}};
  }
  const auto& status = pass.run.status;
  if (status && api::is_terminal(status->conditions)) return {std::move(pass.plan), {}, {}};
  if (status && status->workflowRef) {
    detail::mirror_workflow(pass);
  } else {
    create_workflow(pass);
  }
  return {std::move(pass.plan), {}, {}};
}

}  // namespace nvcre::workloadrun
