// Diagnose mode in the Workflow reconciler: a finished round goes through the pure transitions
// (workflow/diagnose.hpp) with what its Jobs' bandwidth measurements say, and the result becomes
// the next round's groups or the verdict with its node-results ConfigMaps. Everything the next
// pass needs is in status.orchestration.diagnose, so a restarted manager picks up where it was.
#include "api/conditions.hpp"
#include "api/measurement.hpp"
#include "job/job_measurements.hpp"
#include "measure/bandwidth.hpp"
#include "reconcile/kit.hpp"
#include "workflow/diagnose.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

namespace nvcre::workflow::detail {
namespace json = boost::json;

namespace {

using Observation = diagnose::BandwidthObservation;
using State = Observation::State;

constexpr std::string_view kBandwidthKey = "busBandwidthGBps";

std::string bandwidth_threshold(const api::WorkflowSpec& spec) {
  if (!spec.validation || !spec.validation->performance ||
      !spec.validation->performance->thresholds)
    return {};
  const auto& thresholds = spec.validation->performance->thresholds->thresholds;
  auto it = thresholds.find(std::string(kBandwidthKey));
  return it == thresholds.end() ? std::string() : it->second;
}

Observation unavailable(std::string why) { return {State::Unavailable, 0, std::move(why)}; }

// What the bandwidth gate knows about a Succeeded group. Pending also while its Job is being read
// live (the pass then plans only the read).
Observation observe_bandwidth(Pass& pass, const api::GroupStatus& group) {
  if (!group.jobRef) return unavailable("the group has no Job");
  const k8s::ObjectRef ref = job_ref_of(pass, *group.jobRef);
  const json::value* object = pass.in.cache.get(ref);
  if (object == nullptr) {  // a cache miss is not proof: confirm live
    const auto answer = pass.live(ref);
    if (!answer.known) return {};
    if (answer.object == nullptr) return unavailable("Job " + ref.name + " is gone");
    object = answer.object;
  }
  api::Job job;
  try {
    job = api::decode<api::Job>(*object);
  } catch (const api::DecodeError& error) {
    return unavailable("Job " + ref.name + " cannot be decoded: " + error.what());
  }
  // Found by its jobRef, as the reference's index finds it: the Job's own `<job>-bandwidth`, or one
  // created for it under another name.
  const json::value* measurement = nullptr;
  for (const json::value* m :
       job::detail::measurements_of(pass.in.cache, job, api::BandwidthMeasurement::kKind)) {
    if (job::detail::measures_job(*m, job)) {
      measurement = m;
      break;
    }
  }
  if (measurement == nullptr) {
    // None yet: one comes when the Job asks for it; otherwise waiting would never end.
    if (!job.spec.bandwidthMeasurement)
      return unavailable("Job " + ref.name + " measures no bandwidth");
    return {};
  }
  const auto conditions = reconcile::status_conditions(*measurement);
  const api::Condition* complete = api::find_condition(conditions, api::kConditionComplete);
  if (complete == nullptr || complete->status != api::condition_status::kTrue) return {};
  if (complete->reason != api::measurement_reason::kJobSucceeded)
    return unavailable("bandwidth measurement complete with reason " + complete->reason);
  std::optional<double> peak;
  try {
    const auto decoded = api::decode<api::BandwidthMeasurement>(*measurement);
    if (decoded.status) peak = measure::peak_bus_bandwidth(decoded.status->results);
  } catch (const api::DecodeError& error) {
    return unavailable(std::string("bandwidth measurement cannot be decoded: ") + error.what());
  }
  if (!peak) return unavailable("bandwidth measurement complete without results");
  return {State::Measured, *peak, ""};
}

std::vector<api::GroupStatus> round_groups(const std::vector<diagnose::Group>& groups) {
  std::vector<api::GroupStatus> out;
  for (const auto& g : groups) {
    api::GroupStatus status;
    status.name = g.name;
    status.nodes = g.nodes;
    status.domains = g.domains;
    status.phase = std::string(api::group_phase::kPending);
    out.push_back(std::move(status));
  }
  return out;
}

// The verdict: failed nodes (when any are blamed) and the healthy nodes recorded first; false
// while this pass cannot write them (the round is then decided again by the next pass).
bool record_verdict_nodes(Pass& pass, const diagnose::RoundResult& result) {
  if (!result.failed_nodes.empty() &&
      !write_node_results(pass, NodeResultKind::Failed, {}, result.failed_nodes))
    return false;
  return write_node_results(pass, NodeResultKind::Succeeded, result.succeeded_nodes, {});
}

}  // namespace

void complete_diagnose_round(Pass& pass) {
  auto& orch = pass.orch();
  const auto& spec = *pass.spec.orchestration.diagnose;
  diagnose::RoundInput input;
  input.status = orch.diagnose.value_or(
      api::DiagnoseStatus{.stage = std::string(api::diagnose_stage::kIntraScreening)});
  input.groups = orch.groups;
  input.min_group_size = spec.minGroupSize.value_or(2);
  const auto& train_job = pass.spec.jobTemplate.spec.workload.trainJob;
  input.mnnvl_enabled = train_job && diagnose::mnnvl_enabled(*train_job);
  input.bandwidth_threshold = bandwidth_threshold(pass.spec);
  if (!input.bandwidth_threshold.empty()) {
    for (const auto& g : orch.groups) {
      if (g.phase == api::group_phase::kSucceeded)
        input.bandwidth[g.name] = observe_bandwidth(pass, g);
    }
    if (pass.waiting_for_live()) return;
  }
  diagnose::RoundResult result;
  try {
    result = diagnose::complete_round(input);
  } catch (const std::invalid_argument& error) {
    return pass.set_error(std::string("diagnose: ") + error.what());
  }
  using Kind = diagnose::RoundResult::Kind;
  if (result.kind == Kind::Pending) return pass.requeue(k8s::kDefaultRequeue);
  if (result.kind != Kind::NextRound && !record_verdict_nodes(pass, result))
    return pass.discard_status_changes();
  const std::int64_t completed = orch.completedIterations.value_or(0) + 1;
  orch.completedIterations = completed;
  orch.diagnose = result.status;
  if (result.kind == Kind::Succeeded) {
    pass.set_condition(api::kConditionSucceeded, result.reason, result.message);
    return;
  }
  if (result.kind == Kind::Failed) {
    pass.fail(result.reason, result.message);
    return;
  }
  orch.groups = round_groups(result.groups);
  orch.totalGroups = static_cast<std::int64_t>(orch.groups.size());
  orch.currentIteration = completed + 1;
  pass.set_condition(api::kConditionInProgress, api::workflow_reason::kIterationCompleted,
                     result.message);
  pass.requeue(k8s::kImmediateRequeue);
}

}  // namespace nvcre::workflow::detail
