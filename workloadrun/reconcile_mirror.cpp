// Mirroring a WorkloadRun's Workflow into the run's status.
#include "api/conditions.hpp"
#include "jsonkit/paths.hpp"
#include "reconcile/kit.hpp"
#include "workloadrun/reconcile_pass.hpp"

namespace nvcre::workloadrun::detail {

namespace reason = api::workloadrun_reason;
using jsonkit::string_at;
using jsonkit::value_at;

namespace {

// The Workflow tier's Failed reason for a threshold miss, which the run reports distinctly.
constexpr std::string_view kJobValidationFailed = "JobValidationFailed";

}  // namespace

void mirror_workflow(Pass& pass) {
  // The Workflow lives in the run's namespace, whatever the ref says (as upstream reads it).
  const auto ref = reconcile::workflow_object_ref(pass.run.metadata.namespace_,
                                                  pass.run.status->workflowRef->name);
  const boost::json::value* workflow = pass.in.cache.get(ref);
  if (workflow == nullptr) {
    // A cache miss is not proof of deletion: only a live NotFound fails the run.
    auto live = pass.in.live.find(ref);
    if (live == pass.in.live.end()) {
      pass.plan.actions.push_back(k8s::live_get(ref));
    } else if (!live->second.is_null()) {
      pass.plan.requeue_after = k8s::kDefaultRequeue;
    } else {
      StatusUpdate update(pass);
      update.set_execution(api::kConditionFailed, reason::kWorkflowDeleted, "Workflow was deleted");
      update.commit(pass);
    }
    return;
  }

  StatusUpdate update(pass);
  auto& status = update.status();
  if (const auto* orchestration = jsonkit::value_at(*workflow, {"status", "orchestration"});
      orchestration && orchestration->is_object()) {
    status.detectedPlatform = jsonkit::string_at(*orchestration, {"detectedPlatform"});
    status.detectedGPUArchitecture =
        jsonkit::string_at(*orchestration, {"detectedGPUArchitecture"});
  }
  status.succeededNodesRef = reconcile::status_node_ref(*workflow, "succeededNodesRef");
  status.failedNodesRef = reconcile::status_node_ref(*workflow, "failedNodesRef");
  const auto conditions = reconcile::status_conditions(*workflow);
  // Before the terminal mirror: the Workflow sets ValidationFailed alongside Failed.
  if (api::condition_is_true(conditions, api::kConditionValidationFailed)) {
    update.set_condition(api::kConditionValidationFailed, reason::kThresholdViolation,
                         reconcile::condition_message(conditions, api::kConditionValidationFailed));
  }
  if (api::condition_is_true(conditions, api::kConditionSucceeded)) {
    update.set_execution(api::kConditionSucceeded, reason::kWorkflowSucceeded,
                         "Workflow completed successfully");
  } else if (api::condition_is_true(conditions, api::kConditionFailed)) {
    // "Ran but missed its numbers" is told apart from "broke" by the Workflow's Failed reason.
    const bool threshold =
        reconcile::condition_reason(conditions, api::kConditionFailed) == kJobValidationFailed;
    update.set_execution(api::kConditionFailed,
                         threshold ? reason::kWorkflowValidationFailed : reason::kWorkflowFailed,
                         reconcile::condition_message(conditions, api::kConditionFailed));
  } else {
    pass.plan.requeue_after = k8s::kDefaultRequeue;
  }
  update.commit(pass);
}

}  // namespace nvcre::workloadrun::detail
