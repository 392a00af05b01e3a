#include "job/job_workload.hpp"
#include "k8s/meta.hpp"

#include "api/conditions.hpp"
#include "k8s/rfc3339.hpp"
#include "job/job_failure.hpp"
#include "job/job_gang_check.hpp"
#include "job/job_stall.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::job::detail {
namespace json = boost::json;
using trainjob::WorkloadPhase;

namespace {

k8s::ObjectRef workload_ref_of(const api::Job& job) {
  return k8s::ObjectRef{std::string(trainjob::kApiVersion), std::string(trainjob::kKind),
                        job.metadata.namespace_, trainjob::workload_name(job.metadata.name)};
}

std::string workload_text(const std::string& name) {
  return std::string(trainjob::kKind) + "/" + name;
}

// A Job that fails before its workload exists failed on its configuration or a name collision, not
// on a node: nobody is blamed and there is no log of ours to read (pods with our label could even
// belong to a foreign holder of the name).
constexpr FailureAttribution kNothingRan{.capture_log = false, .attribute_nodes = false};

void record_workload(JobStatusDraft& draft, const k8s::ObjectRef& ref, std::string_view reason,
                     std::string_view verb) {
  draft.status().workloadRef = api::WorkloadReference{
      .apiVersion = ref.api_version, .kind = ref.kind, .name = ref.name, .namespace_ = ref.ns};
  draft.set_phase(api::kConditionInProgress, reason,
                  "Workload " + workload_text(ref.name) + " " + std::string(verb));
}

// The Create of the previous plan met a holder of the name.
void on_already_exists(JobPass& pass, JobStatusDraft& draft, const k8s::ObjectRef& ref,
                       const k8s::ActionOutcome& outcome) {
  if (!outcome.live_holder || outcome.live_holder->is_null()) {
    // Unreadable, or gone between the Create and the read: retry with backoff.
    pass.result.plan.error = "TrainJob " + ref.ns + "/" + ref.name +
                             " already exists and its holder could not be read live; retrying";
    return;
  }
  const json::value& holder = *outcome.live_holder;
  // A holder on its way out, ours (the run a checkpoint restart deleted) or foreign, is waited for:
  // adopting it would adopt a run that is ending.
  if (k8s::is_being_deleted(holder)) {
    pass.result.plan.requeue_after = k8s::kDefaultRequeue;
    return;
  }
  if (k8s::is_controlled_by(holder, pass.job.metadata.uid)) {
    record_workload(draft, ref, api::job_reason::kWorkloadAdopted, "adopted");
    pass.result.plan.requeue_after = k8s::kDefaultRequeue;
    return;
  }
  // Never recorded in workloadRef, so nothing can ever delete the foreign object.
  fail_job(pass, draft, api::job_reason::kWorkloadCreationError,
           "TrainJob " + ref.name + " already exists and is not owned by this Job", kNothingRan);
}

std::optional<std::string> scheduling_block(const std::vector<const json::value*>& pods) {
  for (const json::value* pod : pods) {
    if (!string_at(*pod, {"spec", "nodeName"}).empty()) continue;
    const json::value* conditions = value_at(*pod, {"status", "conditions"});
    if (conditions == nullptr || !conditions->is_array()) continue;
    for (const auto& c : conditions->get_array()) {
      if (string_at(c, {"type"}) == "PodScheduled" && string_at(c, {"status"}) == "False" &&
          string_at(c, {"reason"}) == "Unschedulable") {
        return string_at(c, {"message"});
      }
    }
  }
  return std::nullopt;
}

// A workload that ended without success (failed, vanished, stalled): a restart from the last
// checkpoint while restarts remain, else the Job fails.
void workload_lost(JobPass& pass, JobStatusDraft& draft, const k8s::ObjectRef& workload,
                   std::string_view reason, const std::string& message) {
  if (restart_allowed(pass, draft.status())) {
    restart_from_checkpoint(pass, draft, workload);
    return;
  }
  fail_job(pass, draft, reason, message);
}

// Phase Running: time spent unschedulable does not count.
void running(JobPass& pass, JobStatusDraft& draft, const k8s::ObjectRef& ref,
             const std::string& workload) {
  api::JobStatus& status = draft.status();
  const auto now = pass.in.now;
  pass.result.plan.requeue_after = k8s::kDefaultRequeue;
  const auto blocked = scheduling_block(pass.pods);
  if (!blocked && !status.schedulingBlockedSince.empty()) {
    const auto marker = k8s::parse_rfc3339(status.schedulingBlockedSince).value_or(now);
    if (auto start = k8s::parse_rfc3339(status.workloadStartTime)) {
      status.workloadStartTime = k8s::format_rfc3339(*start + (now - std::max(marker, *start)));
    }
    status.schedulingResumedTime = draft.now();
    status.schedulingBlockedSince.clear();
  }
  if (blocked) {
    const auto marker = k8s::parse_rfc3339(status.schedulingBlockedSince);
    if (!marker) {
      status.schedulingBlockedSince = draft.now();  // the episode starts; reported after the grace
      return;
    }
    const std::chrono::seconds grace =
        pass.job.spec.schedulingStallGraceSeconds
            ? std::chrono::seconds(*pass.job.spec.schedulingStallGraceSeconds)
            : kDefaultSchedulingStallGrace;
    if (now - *marker > grace) {
      draft.set_phase(api::kConditionInProgress, api::job_reason::kWorkloadSchedulingBlocked,
                      "Workload pods are unschedulable: " + *blocked);
    }
    return;
  }
  const std::string start =
      status.workloadStartTime.empty() ? draft.now() : status.workloadStartTime;
  if (auto stalled = stall_verdict(pass, status, start)) {
    workload_lost(pass, draft, ref, api::job_reason::kWorkloadStalled, *stalled);
    return;
  }
  if (status.workloadStartTime.empty()) status.workloadStartTime = start;
  draft.set_phase(api::kConditionInProgress, api::job_reason::kWorkloadRunning,
                  "Workload " + workload + " is running");
}

}  // namespace

void create_workload(JobPass& pass, JobStatusDraft& draft) {
  const api::Job& job = pass.job;
  const k8s::ObjectRef ref = workload_ref_of(job);
  const auto& outcome = pass.in.outcome;
  if (outcome && outcome->action.verb == k8s::ActionVerb::Create && outcome->action.target == ref) {
    if (outcome->reason == "AlreadyExists") {
      on_already_exists(pass, draft, ref, *outcome);
      return;
    }
    // Not terminal (e.g. an admission webhook refusing while the TrainingRuntime is not ready).
    const std::string message =
        "Failed to create workload " + workload_text(ref.name) + ": " + outcome->message;
    draft.add_event("Warning", api::job_event::kWorkloadCreationError, message);
    pass.result.plan.error = message;
    return;
  }
  if (auto left = restart_grace_left(pass)) {
    pass.result.plan.requeue_after = *left;
    return;
  }
  if (!job.spec.workload.trainJob) {
    fail_job(pass, draft, api::job_reason::kWorkloadCreationError,
             "Unsupported workload type: no workload type specified", kNothingRan);
    return;
  }
  GangCheck gang = check_gang_consistency(pass);
  if (gang.waiting) return;
  if (!gang.error.empty()) {
    pass.result.plan.error = gang.error;
    return;
  }
  if (gang.conflict) {
    fail_job(pass, draft, gang.conflict->reason, gang.conflict->message, kNothingRan);
    return;
  }
  pass.result.plan.actions.push_back(k8s::make_action(
      k8s::ActionVerb::Create, ref, trainjob::build_train_job(job, gang.workload_labels)));
  record_workload(draft, ref, api::job_reason::kWorkloadCreated, "created");
  pass.result.plan.requeue_after = k8s::kDefaultRequeue;
}

void update_from_workload(JobPass& pass, JobStatusDraft& draft) {
  const api::WorkloadReference& workload = *pass.job.status->workloadRef;
  const std::string ns =
      workload.namespace_.empty() ? pass.job.metadata.namespace_ : workload.namespace_;
  const k8s::ObjectRef ref{workload.apiVersion, workload.kind, ns, workload.name};
  const std::string name = workload.kind + "/" + workload.name;
  const ObjectLookup found = pass.read(ref);
  switch (found.state) {
    case ObjectLookup::State::Unknown:
      return;
    case ObjectLookup::State::Absent:
      workload_lost(pass, draft, ref, api::job_reason::kWorkloadFailed,
                    "Workload " + name + " was deleted");
      return;
    case ObjectLookup::State::Present:
      break;
  }
  if (found.live) {
    pass.result.plan.requeue_after =
        k8s::kDefaultRequeue;  // exists, the cache has not caught up yet
    return;
  }
  const trainjob::WorkloadState state = trainjob::workload_state(*found.object);
  switch (state.phase) {
    case WorkloadPhase::Failed:
      // The TrainJob's own condition message, when it has one, follows the verdict.
      workload_lost(pass, draft, ref, api::job_reason::kWorkloadFailed,
                    state.message.empty() ? "Workload " + name + " failed"
                                          : "Workload " + name + " failed: " + state.message);
      return;
    case WorkloadPhase::Succeeded:
      draft.set_phase(api::kConditionSucceeded, api::job_reason::kWorkloadCompleted,
                      state.message.empty() ? "Workload " + name + " completed successfully"
                                            : "Workload " + name + " completed: " + state.message);
      return;
    case WorkloadPhase::Pending:
      // Suspended (e.g. waiting for Kueue admission): no clock starts.
      draft.set_phase(api::kConditionInProgress, api::job_reason::kWorkloadPending,
                      "Workload " + name + " is pending: " + state.message);
      pass.result.plan.requeue_after = k8s::kDefaultRequeue;
      return;
    case WorkloadPhase::Running:
      running(pass, draft, ref, name);
      return;
  }
}

}  // namespace nvcre::job::detail
