#pragma once
// Internal to the Workflow reconciler: the state of one pass (inputs, the effective spec, the
// status being edited, the actions planned so far) and the steps that share it. Steps mutate
// `status` freely; finish() turns the difference into one conditional status write.
#include "api/labels.hpp"
#include "api/conditions.hpp"
#include "api/workflow.hpp"
#include "k8s/reconcile_plan.hpp"
#include "reconcile/reads.hpp"
#include "reconcile/resource_slices.hpp"
#include "workflow/node_results.hpp"
#include "workflow/workflow_document.hpp"
#include "workflow/workflow_reconciler.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow::detail {

using api::kJobLabel;

class Pass {
 public:
  Pass(const reconcile::Context& input, WorkflowDocument document);

  const reconcile::Context& in;
  WorkflowDocument doc;        // as read; doc.workflow.spec is the stored spec
  api::WorkflowSpec spec;      // effective spec (overrides applied)
  api::WorkflowStatus status;  // being edited
  WorkflowExtras extras;       // placement and status extras being edited
  std::string now_text;
  std::set<std::string>
      reset_groups;  // sent back to Pending by this pass: not relaunched before the next

  const api::Workflow& workflow() const { return doc.workflow; }
  const std::string& name() const { return doc.workflow.metadata.name; }
  const std::string& ns() const { return doc.workflow.metadata.namespace_; }
  const std::string& uid() const { return doc.workflow.metadata.uid; }
  k8s::ObjectRef self_ref() const;
  api::OrchestrationStatus& orch();
  std::int64_t iterations() const;  // spec iterations, at least 1

  // Conditions and events. set_condition queues the transition event when the True type changes.
  void set_condition(std::string_view type, std::string_view reason, std::string_view message);
  void fail(std::string_view reason, std::string_view message) {
    set_condition(api::kConditionFailed, reason, message);
  }
  void event(std::string_view type, std::string_view reason, std::string note);
  void event_on(k8s::ObjectRef regarding, std::string uid, std::string_view type,
                std::string_view reason, std::string note);

  // Live reads: the object (nullptr = live NotFound), or, when not read yet, a LiveGet is planned
  // and `known` is false.
  struct LiveAnswer {
    bool known = false;
    const boost::json::value* object = nullptr;
  };
  LiveAnswer live(const k8s::ObjectRef& ref);
  // The object as the informer cache holds it when it does (a delete planned from it carries its
  // UID as precondition, so a stale copy never deletes a same-named replacement), else live(ref).
  LiveAnswer current(const k8s::ObjectRef& ref);
  bool waiting_for_live() const { return !live_gets_.empty(); }
  // An uncached List of a collection (reconcile/reads.hpp), planned as a live read while
  // unanswered.
  reconcile::CollectionLookup collection(const k8s::ObjectRef& ref);
  // The DRA fallback's ResourceSlice List (reconcile/resource_slices.hpp), planned as a live read
  // while unanswered (`waiting`).
  reconcile::SliceProducts resource_slice_products(bool needed);

  // The outcome of the previous plan when it concerns `verb` on `target`.
  const k8s::ActionOutcome* outcome_for(k8s::ActionVerb verb, const k8s::ObjectRef& target) const;

  // Side actions run before the status write. At most one Create per pass outside launches (see
  // the header of workflow_reconciler.hpp); can_create() says whether this pass may still plan one.
  // Launches also stay out of passes that needed live reads, so a create's replay never depends on
  // them.
  void add(k8s::Action action) { actions_.push_back(std::move(action)); }
  bool can_create() const { return (!created_ || batching_) && !waiting_for_live(); }
  // While on, creates are not limited to one (the launch of every launchable group).
  void batch_creates(bool on) { batching_ = on; }
  bool batching() const { return batching_; }
  bool can_launch() const { return can_create() && !used_live_; }
  void add_create(k8s::Action action);
  // joins_previous: the delete does not have to wait for the action planned before it.
  void delete_object(const k8s::ObjectRef& ref, std::optional<std::string> uid,
                     bool joins_previous = false);

  // Requeue wishes; finish() takes the shortest one.
  void requeue(std::chrono::milliseconds after);
  void set_error(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }
  bool has_error() const { return !error_.empty(); }
  // Drops this pass's status edits (for steps whose edits are not idempotent, such as counting a
  // completed iteration, when the pass cannot finish them).
  void discard_status_changes();

  // The plan: only the LiveGets while reads are outstanding; otherwise the side actions, the status
  // write when the status changed, the events and the requeue.
  k8s::ReconcilePlan finish();

 private:
  void plan_reads(k8s::ReconcilePlan reads);  // its LiveGets, once each

  std::vector<k8s::Action> actions_;
  std::vector<k8s::Action> live_gets_;
  std::vector<k8s::EventRecord> events_;
  std::optional<std::chrono::milliseconds> requeue_;
  std::string error_;
  bool created_ = false;
  bool batching_ = false;
  bool used_live_ = false;
};

// ---- steps (one file each) ------------------------------------------------------------------

// Discovery, detection, tracked overrides, exclusions, workflow-scoped dependencies and the
// partition. Runs while totalGroups == 0.
void discover_and_partition(Pass& pass);

// Before an owned PersistentVolumeClaim is deleted: the live read of its bound volume and the
// patch that stamps it with the Workflow's uid (volume_reclaim.hpp). False while the read is
// pending; true for any other kind.
bool stamp_claim_volume(Pass& pass, const k8s::ObjectRef& target, const boost::json::value& object);

// Creates the next missing workflow-scoped dependency (one per pass). Returns true when all
// exist; false when this pass created one, waits, or failed the Workflow.
bool ensure_workflow_dependencies(Pass& pass);

// How a Create of a dependency or Job ended, from the outcome of the previous plan.
// Retry: a fault a retry can cure, or a name held by an object on its way out; Rejected: the
// server refused the object itself (400, 403, 422, ...), which no retry cures.
enum class CreateResult { Planned, Adopted, Collision, Retry, Rejected, NoBudget };
struct CreateOutcome {
  CreateResult result = CreateResult::Planned;
  std::string message;  // Collision / Retry / Rejected
};
// The ref (apiVersion, kind, name, namespace) of a dependency object about to be created.
api::DependencyResourceRef dependency_ref_of(const boost::json::object& object);
// Plans the Create of a dependency object, or reads the previous plan's outcome for it.
CreateOutcome create_dependency(Pass& pass, const boost::json::object& object,
                                const api::DependencyResourceRef& ref);
// A dependency create that did not go through (Retry or Rejected): a fault a retry can cure is
// retried after the error's backoff under a Warning; a refusal no retry cures fails the Workflow.
// `message` is what the event and condition say, `error` what the pass returns.
void judge_refused_dependency(Pass& pass, CreateResult result, const std::string& message,
                              const std::string& error);

// Deletes the dependency refs of (group, iteration) in reverse order after an ownership check;
// returns false while live reads are outstanding. Refs whose object is gone or foreign are dropped.
bool cleanup_job_dependencies(Pass& pass, std::string_view group, std::int64_t iteration);

// Polls Running groups; returns whether any group changed.
bool update_running_groups(Pass& pass);

// Launches Pending groups within maxConcurrent and the node-overlap guard.
void launch_pending_groups(Pass& pass);

// Iteration completion and the final status.
void complete_iteration(Pass& pass);

// Diagnose mode: the round that just finished decides the next round or the verdict (stage
// transitions in workflow/diagnose.hpp); a round whose bandwidth measurements are still to come
// holds. Called by complete_iteration.
void complete_diagnose_round(Pass& pass);

// Merges `succeeded` (kind Succeeded) or `failed` (kind Failed) into the Workflow's node-results
// ConfigMap and points the status ref at it. False when this pass cannot write it yet (its one
// create is spent: requeued) or the write failed (error set).
bool write_node_results(Pass& pass, NodeResultKind kind, const std::vector<std::string>& succeeded,
                        const std::vector<api::FailedNode>& failed);

// The deletion flow (runs on the document directly: no overrides, no status writes).
k8s::ReconcilePlan reconcile_deletion(const reconcile::Context& input, const WorkflowDocument& doc);

// Helpers shared by steps.
bool group_running(const api::GroupStatus& group);
bool group_terminal(const api::GroupStatus& group);
k8s::ObjectRef job_ref_of(const Pass& pass, const api::WorkloadReference& ref);
std::string describe_outcome(const k8s::ActionOutcome& outcome);
// A 409 on a conditional write of the Workflow itself: re-planning from the fresh copy answers it.
// (A 409 on another object's write is reported, so the retry comes after backoff and a fresher
// cache.)
bool is_own_conflict(const k8s::ActionOutcome& outcome, const k8s::ObjectRef& workflow);

}  // namespace nvcre::workflow::detail
