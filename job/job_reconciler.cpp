#include "job/job_reconciler.hpp"

#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "job/job_deletion.hpp"
#include "job/job_failure.hpp"
#include "job/job_health.hpp"
#include "job/job_measurements.hpp"
#include "job/job_pass.hpp"
#include "job/job_status.hpp"
#include "job/job_thresholds.hpp"
#include "job/job_workload.hpp"
#include "job/trainjob_adapter.hpp"

#include <algorithm>

namespace nvcre::job {
using namespace detail;  // the steps of a pass

namespace {

// The create path reads the outcome of its own TrainJob Create and the measurement steps the
// outcome of theirs; any other failed action is retried with backoff, as a Go reconciler
// returning the error would be.
bool is_workload_create(const k8s::ActionOutcome& outcome) {
  return outcome.action.verb == k8s::ActionVerb::Create &&
         outcome.action.target.kind == trainjob::kKind &&
         outcome.action.target.api_version == trainjob::kApiVersion;
}

std::string describe(const k8s::ActionOutcome& outcome) {
  std::string text = std::string(k8s::to_string(outcome.action.verb)) + " " +
                     k8s::to_string(outcome.action.target) +
                     " failed: " + std::to_string(outcome.code);
  if (!outcome.reason.empty()) text += " " + outcome.reason;
  if (!outcome.message.empty()) text += ": " + outcome.message;
  return text;
}

bool has_finalizer(const api::Job& job) {
  return std::find(job.metadata.finalizers.begin(), job.metadata.finalizers.end(), kJobFinalizer) !=
         job.metadata.finalizers.end();
}

}  // namespace

reconcile::Result reconcile_job(const reconcile::Context& input) {
  if (input.object == nullptr) return {};  // deleted: nothing to do
  api::Job job;
  try {
    job = api::decode_object<api::Job>(*input.object);
  } catch (const std::exception& e) {
    reconcile::Result poisoned;
    poisoned.plan.error = std::string("cannot decode Job: ") + e.what();
    return poisoned;
  }
  JobPass pass(input, job);
  if (input.outcome && !is_workload_create(*input.outcome) &&
      !is_measurement_create(*input.outcome)) {
    pass.result.plan.error = describe(*input.outcome);
    return pass.take_result();
  }
  if (!job.metadata.deletionTimestamp.empty()) {
    reconcile_deletion(pass);
    return pass.take_result();
  }
  if (!has_finalizer(job)) {
    // Only the finalizer list is patched; the watch event of the patch drives the next pass.
    auto finalizers = job.metadata.finalizers;
    finalizers.emplace_back(kJobFinalizer);
    pass.result.plan.actions.push_back(finalizers_patch(job, std::move(finalizers)));
    return pass.take_result();
  }

  JobStatusDraft draft(job, k8s::format_rfc3339(input.now));
  // Terminal: the workload and its pods stay for the logs; only the thresholds may be left.
  if (draft.terminal()) {
    check_thresholds(pass, draft);
    if (!pass.stopped()) draft.finish(pass.result.plan);
    return pass.take_result();
  }

  if (job.status && job.status->workloadRef) {
    ensure_goodput_measurement(pass, draft);
    ensure_bandwidth_measurement(pass, draft);
    update_from_workload(pass, draft);
    check_thresholds(pass, draft);
  } else if (auto problem = health_rule_problem(job)) {
    // Running without the requested health rule would certify nodes it was meant to guard, so the
    // workload is never created. A spec problem, not a node's: nobody is blamed, no log is read.
    fail_job(pass, draft, api::job_reason::kWorkloadCreationError, *problem,
             FailureAttribution{.capture_log = false, .attribute_nodes = false});
  } else {
    create_workload(pass, draft);
  }
  if (pass.stopped()) return pass.take_result();
  if (!draft.terminal()) check_node_health(pass, draft);
  draft.finish(pass.result.plan);
  return pass.take_result();
}

}  // namespace nvcre::job
