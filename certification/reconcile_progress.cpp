#include "certification/reconcile_progress.hpp"

#include <algorithm>

#include "api/conditions.hpp"
#include "reconcile/kit.hpp"

namespace nvcre::certification::detail {

namespace reason = api::certification_reason;
namespace phase = api::category_phase;

namespace {

std::string key_of(const std::string& domain, const std::string& variant) {
  return domain + "/" + variant;
}

std::string created_message(const api::CertificateCategory& category, std::size_t position,
                            std::size_t total) {
  return "Created Workflow for category " + key_of(category.domain, category.variant) + " (" +
         std::to_string(position) + " of " + std::to_string(total) + ")";
}

bool is_done(const api::CertificationCategoryStatus& status) {
  return status.status == phase::kSucceeded || status.status == phase::kFailed;
}

// The verdict once every category is terminal; no requeue.
void set_verdict(StatusUpdate& update) {
  const auto& statuses = update.status().categoryStatuses;
  const bool any_failed = std::any_of(statuses.begin(), statuses.end(),
                                      [](const auto& s) { return s.status == phase::kFailed; });
  if (any_failed) {
    update.failed(reason::kWorkflowFailed, "One or more certification categories failed");
  } else {
    update.succeeded(reason::kAllWorkflowsSucceeded,
                     "All certification categories completed successfully");
  }
}

void finalize(Pass& pass) {
  StatusUpdate update(pass);
  set_verdict(update);
  update.commit(pass);
}

// Mirror the active Workflow's node refs and advance when it is terminal. A cache miss is
// confirmed live before the category is failed for a missing Workflow.
void check_active_workflow(Pass& pass, std::size_t index) {
  const auto& category = pass.certification.status->categoryStatuses[index];
  const std::string key = key_of(category.domain, category.variant);
  const auto ref = reconcile::workflow_object_ref(pass.workflow_namespace(*category.workflowRef),
                                                  category.workflowRef->name);
  const boost::json::value* workflow = pass.in.cache.get(ref);
  if (workflow == nullptr) {
    auto live = pass.in.live.find(ref);
    if (live == pass.in.live.end()) {
      pass.plan.actions.push_back(k8s::live_get(ref));
      return;
    }
    if (!live->second.is_null()) {  // cache lag: the Owns watch brings it soon
      pass.plan.requeue_after = k8s::kDefaultRequeue;
      return;
    }
    StatusUpdate update(pass);
    update.status().categoryStatuses[index].status = std::string(phase::kFailed);
    update.in_progress(reason::kWorkflowRunning, "Workflow for category " + key + " not found");
    update.commit(pass);
    pass.plan.requeue_after = k8s::kImmediateRequeue;
    return;
  }

  StatusUpdate update(pass);
  auto& mirrored = update.status().categoryStatuses[index];
  if (auto succeeded = reconcile::status_node_ref(*workflow, "succeededNodesRef"))
    mirrored.succeededNodesRef = succeeded;
  if (auto failed = reconcile::status_node_ref(*workflow, "failedNodesRef"))
    mirrored.failedNodesRef = failed;
  const auto conditions = reconcile::status_conditions(*workflow);
  const bool failed = api::condition_is_true(conditions, api::kConditionFailed);
  if (api::condition_is_true(conditions, api::kConditionValidationFailed)) {
    // The quality signal goes up the chain: one category that missed its numbers is enough.
    update.set_independent_condition(
        api::kConditionValidationFailed, api::condition_status::kTrue, reason::kThresholdViolation,
        "Category " + key + " failed performance threshold validation: " +
            reconcile::condition_message(conditions, api::kConditionValidationFailed));
  }
  if (failed || api::condition_is_true(conditions, api::kConditionSucceeded)) {
    // The last category too: every terminal Workflow is first mirrored as "advancing", and the
    // verdict is the next pass's own write. So a Certification whose status already lists its
    // categories but has no condition yet (restored from a backup, or written by another tool)
    // still announces WorkflowRunning before its verdict, and every run shows the same events.
    mirrored.status = std::string(failed ? phase::kFailed : phase::kSucceeded);
    update.in_progress(reason::kWorkflowRunning, "Workflow for category " + key +
                                                     (failed ? " failed" : " succeeded") +
                                                     ", advancing to next category");
    pass.plan.requeue_after = k8s::kImmediateRequeue;
  } else {
    update.in_progress(reason::kWorkflowRunning, "Certification in progress");
    pass.plan.requeue_after = k8s::kDefaultRequeue;
  }
  update.commit(pass);
}

// Creates (or adopts) category `index`'s Workflow and starts it, or reports why not.
void start_category(Pass& pass, std::size_t index) {
  const auto& categories = pass.certification.spec.categories;
  if (index >= categories.size()) {
    pass.plan.error = "category index " + std::to_string(index) + " out of range (spec has " +
                      std::to_string(categories.size()) + " categories)";
    return;
  }
  continue_with_create(pass, index, false, create_category_workflow(pass, categories[index]));
}

// The status write that starts category `index` with the Workflow `create` names.
void record_started(Pass& pass, std::size_t index, const CategoryCreate& create) {
  const auto& category = pass.certification.spec.categories[index];
  StatusUpdate update(pass);
  auto& statuses = update.status().categoryStatuses;
  auto& started = statuses[index];
  started.status = std::string(phase::kInProgress);
  started.workflowRef = api::WorkflowReference{create.workflow_name, pass.ns()};
  update.in_progress(reason::kWorkflowCreated,
                     created_message(category, index + 1, statuses.size()));
  update.commit(pass);
  pass.plan.requeue_after = k8s::kDefaultRequeue;
}

// The first create's write: the whole list is seeded in the same write as the condition, so no
// pass can observe a "Created Workflow" condition without the workflowRef it names.
void record_initialized(Pass& pass, const CategoryCreate& create) {
  const auto& categories = pass.certification.spec.categories;
  StatusUpdate update(pass);
  auto& statuses = update.status().categoryStatuses;
  statuses.clear();
  for (const auto& category : categories) {
    statuses.push_back({.domain = category.domain,
                        .variant = category.variant,
                        .status = std::string(phase::kPending)});
  }
  statuses.front().status = std::string(phase::kInProgress);
  statuses.front().workflowRef = api::WorkflowReference{create.workflow_name, pass.ns()};
  update.in_progress(reason::kWorkflowCreated,
                     created_message(categories.front(), 1, categories.size()));
  update.commit(pass);
  pass.plan.requeue_after = k8s::kDefaultRequeue;
}

}  // namespace

void initialize_categories(Pass& pass) {
  const auto& categories = pass.certification.spec.categories;
  for (const auto& category : categories) {
    if (pass.catalog.lookup(category.domain, category.variant) != nullptr) continue;
    const std::string key = key_of(category.domain, category.variant);
    StatusUpdate update(pass);
    update.failed(reason::kCategoryNotFound, "Unknown certification category: " + key);
    update.commit(pass);
    pass.plan.error =
        "unknown certification category: " + key;  // terminal anyway: initialization stops here
    return;
  }
  if (categories.empty()) {
    pass.plan.error = "certification has no categories";
    return;
  }
  continue_with_create(pass, 0, true, create_category_workflow(pass, categories.front()));
}

void continue_with_create(Pass& pass, std::size_t index, bool initializing, CategoryCreate create) {
  if (create.result == CategoryCreate::Result::NeedsBuild) {
    pass.wanted_build = WantedBuild{std::move(*create.build_request), index, initializing};
    return;
  }
  if (create.result != CategoryCreate::Result::Created &&
      create.result != CategoryCreate::Result::Adopted) {
    apply_create_failure(pass, create);
    return;
  }
  if (create.create) pass.plan.actions.push_back(std::move(*create.create));
  pass.plan.events.insert(pass.plan.events.end(), create.events.begin(), create.events.end());
  if (initializing) {
    record_initialized(pass, create);
  } else {
    record_started(pass, index, create);
  }
}

void process_next_category(Pass& pass) {
  const auto& statuses = pass.certification.status->categoryStatuses;
  auto active =
      std::find_if(statuses.begin(), statuses.end(), [](const auto& s) { return !is_done(s); });
  if (active == statuses.end()) {
    finalize(pass);
    return;
  }
  const auto index = static_cast<std::size_t>(active - statuses.begin());
  // An InProgress category that lost its workflowRef is started again: the create adopts our
  // own Workflow if it exists, instead of the panic a nil ref would be upstream.
  if (active->status == phase::kInProgress && active->workflowRef) {
    check_active_workflow(pass, index);
  } else {
    start_category(pass, index);
  }
}

void recover_if_workflow_still_running(Pass& pass) {
  if (!pass.certification.status) return;
  const auto& statuses = pass.certification.status->categoryStatuses;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    if (!statuses[i].workflowRef || statuses[i].status != phase::kFailed) continue;
    const auto ref = reconcile::workflow_object_ref(
        pass.workflow_namespace(*statuses[i].workflowRef), statuses[i].workflowRef->name);
    const boost::json::value* workflow = pass.in.cache.get(ref);
    if (workflow == nullptr || api::is_terminal(reconcile::status_conditions(*workflow))) continue;
    // The Workflow restarted (repeatCount): the Failed verdict is stale.
    StatusUpdate update(pass);
    update.status().categoryStatuses[i].status = std::string(phase::kInProgress);
    update.in_progress(reason::kWorkflowRunning, "Recovered: Workflow still running");
    update.commit(pass);
    pass.plan.requeue_after = k8s::kImmediateRequeue;
    return;
  }
}

}  // namespace nvcre::certification::detail
