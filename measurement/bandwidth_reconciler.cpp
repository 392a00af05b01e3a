#include "measurement/bandwidth_reconciler.hpp"

#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/duration.hpp"
#include "k8s/rfc3339.hpp"
#include "measure/bandwidth.hpp"
#include "measure/log_paging.hpp"
#include "measurement/measurement_pass.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace nvcre::measurement {
namespace json = boost::json;
using namespace detail;
namespace reason = api::measurement_reason;

namespace {

constexpr std::chrono::minutes kFinalReadGrace{2};
constexpr std::string_view kNoDataMessage =
    "Job succeeded but no bandwidth data was parsed; check spec.logProfileRef";

struct BandwidthPass : TypedMeasurementPass<api::BandwidthMeasurement> {
  using TypedMeasurementPass::TypedMeasurementPass;
  api::BandwidthMeasurement& bm = measurement;
};

bool saw_job(const api::BandwidthMeasurement& bm) {
  if (bm.metadata.annotations.contains(std::string(api::kJobUidAnnotation))) return true;
  if (!bm.status) return false;
  return !bm.status->startTime.empty() || !bm.status->results.empty() ||
         api::find_condition(bm.status->conditions, api::kConditionMeasuring) != nullptr;
}

std::string without_final_results(const BandwidthPass& pass) {
  return pass.status.results.empty()
             ? "no bandwidth data was parsed"
             : "results are provisional and are not used for threshold evaluation";
}

void merge_transports(std::vector<std::string>& into, const std::vector<std::string>& more) {
  into = measure::merge_transports(into, more);
}

struct TerminalOutcome {
  std::string_view reason;
  std::string message;
  std::optional<std::vector<api::BandwidthResult>> results;  // replaces the provisional ones
  std::vector<std::string> transports;
};

// The terminal write: results, completionTime at the Job's terminal transition, Measuring False
// and Complete True. The sampling memo is dropped.
void finish(BandwidthPass& pass, std::string completion, TerminalOutcome outcome) {
  if (outcome.results) pass.status.results = std::move(*outcome.results);
  merge_transports(pass.status.transport, outcome.transports);
  pass.status.completionTime = completion.empty() ? pass.now : std::move(completion);
  pass.set_condition(api::kConditionMeasuring, api::condition_status::kFalse, outcome.reason,
                     outcome.message);
  pass.set_condition(api::kConditionComplete, api::condition_status::kTrue, outcome.reason,
                     outcome.message);
  pass.write_status();
  pass.result.memo = json::value();
}

void job_gone(BandwidthPass& pass) {
  finish(pass, pass.now,
         {reason::kLogsUnavailable,
          "Referenced Job no longer exists; " + without_final_results(pass),
          std::nullopt,
          {}});
}

std::string replicated_job_of(const measure::CompiledProfile& profile) {
  const auto& strategy = profile.worker_strategy;
  return strategy && !strategy->replicatedJobName.empty() ? strategy->replicatedJobName
                                                          : std::string(kDefaultReplicatedJob);
}

// What the final read found, or why it could not be made.
struct FinalRead {
  std::vector<api::BandwidthResult> results;
  std::vector<std::string> transports;
  std::string error;      // "" = read
  bool retryable = true;  // a log that cannot be paged fails the same way every time
};

// Reads the finished reporting pod's whole log (asking for it: nullopt while it is not in).
std::optional<FinalRead> final_read(BandwidthPass& pass, const api::Job& job) {
  if (!job.status || !job.status->workloadRef || job.status->workloadRef->name.empty())
    return FinalRead{{}, {}, "job " + job.metadata.name + " has no workload reference", true};
  auto profile = resolve_profile(pass, pass.bm.spec.logProfileRef);
  if (auto* problem = std::get_if<std::string>(&profile)) return FinalRead{{}, {}, *problem, true};
  const auto& compiled = std::get<measure::CompiledProfile>(profile);
  const std::string rj = replicated_job_of(compiled);
  const json::value* pod = reporting_pod(pass, job, rj);
  if (pod == nullptr) {
    return FinalRead{
        {},
        {},
        "no pods found for TrainJob " + job.status->workloadRef->name + " replicatedJob " + rj,
        true};
  }
  const std::string name = jsonkit::string_at(*pod, {"metadata", "name"});
  const std::string phase = pod_phase(*pod);
  // Only a finished pod's log is final: a running one may still print the rows that matter.
  if (phase != "Succeeded" && phase != "Failed")
    return FinalRead{{}, {}, "pod " + name + " has not finished (" + phase + ")", true};
  const auto* answer = pass.pod_log({.ns = pass.bm.metadata.namespace_,
                                     .pod = name,
                                     .container = compiled.container_name,
                                     .limit_bytes = kLogPageBytes,
                                     .timestamps = true,
                                     .whole_log = true});
  if (answer == nullptr) return std::nullopt;
  if (!answer->ok()) {
    return FinalRead{{},
                     {},
                     "reading log of pod " + name + ": " + answer->error,
                     answer->error.find(measure::kLogUnpageable) == std::string::npos};
  }
  const auto scan = measure::scan_bandwidth(compiled, answer->text);
  return FinalRead{measure::average_rows(scan.rows), scan.transports, "", true};
}

// Measuring False FinalReadPending's transition time: when the wait began (survives a restart).
std::optional<k8s::Clock::time_point> final_read_pending_since(const BandwidthPass& pass) {
  const api::Condition* c = api::find_condition(pass.status.conditions, api::kConditionMeasuring);
  if (c == nullptr || c->status != api::condition_status::kFalse ||
      c->reason != reason::kFinalReadPending)
    return std::nullopt;
  return k8s::parse_rfc3339(c->lastTransitionTime);
}

std::chrono::nanoseconds final_read_grace(const api::Job& job) {
  auto timeout = k8s::parse_go_duration(job.spec.measurementTimeout);
  std::chrono::nanoseconds grace = kFinalReadGrace;
  return timeout && *timeout > grace ? *timeout : grace;
}

void job_succeeded(BandwidthPass& pass, const api::Job& job) {
  auto read = final_read(pass, job);
  if (!read) return;
  const std::string anchor = terminal_time(job);
  if (read->error.empty()) {
    if (read->results.empty()) {
      finish(pass, anchor,
             {reason::kNoDataCollected, std::string(kNoDataMessage), std::move(read->results),
              std::move(read->transports)});
    } else {
      finish(pass, anchor,
             {reason::kJobSucceeded, "Job succeeded", std::move(read->results),
              std::move(read->transports)});
    }
    return;
  }
  const auto pending_since = final_read_pending_since(pass).value_or(pass.in.now);
  const auto wait = final_read_grace(job) - (pass.in.now - pending_since);
  // A Job being deleted takes its workload's pods with it: a read they fail will not succeed
  // later, so the measurement ends now instead of warning and retrying through the grace.
  const bool job_going = !job.metadata.deletionTimestamp.empty();
  if (read->retryable && !job_going && wait > std::chrono::nanoseconds::zero()) {
    pass.event("Warning", reason::kFinalReadPending,
               "Final log read failed, retrying: " + read->error);
    if (!final_read_pending_since(pass)) {
      // Replaced, not updated: its transition time is when the wait began.
      std::erase_if(pass.status.conditions,
                    [](const api::Condition& c) { return c.type == api::kConditionMeasuring; });
      pass.set_condition(api::kConditionMeasuring, api::condition_status::kFalse,
                         reason::kFinalReadPending,
                         "Job succeeded; waiting to read its complete log");
      pass.write_status();
    }
    pass.requeue(
        std::min(std::chrono::duration_cast<std::chrono::milliseconds>(wait), kWaitInterval));
    return;
  }
  finish(pass, anchor,
         {reason::kLogsUnavailable,
          "Job succeeded but its log could not be read in full (" + read->error + "); " +
              without_final_results(pass),
          std::nullopt,
          {}});
}

// One best-effort read without a grace period: a failed Job is never judged by its bandwidth.
void job_failed(BandwidthPass& pass, const api::Job& job) {
  auto read = final_read(pass, job);
  if (!read) return;
  TerminalOutcome outcome{reason::kJobFailed, "Job failed", std::nullopt, {}};
  if (read->error.empty()) {
    outcome.transports = std::move(read->transports);
    if (!read->results.empty()) outcome.results = std::move(read->results);
  }
  finish(pass, terminal_time(job), std::move(outcome));
}

// The reconciler's memo between samples: when it last sampled and the anchor of the next read.
struct SamplingMemo {
  std::optional<k8s::Clock::time_point> last_sample;
  std::optional<k8s::Clock::time_point> anchor;
};

SamplingMemo read_memo(const json::value& memo) {
  if (!memo.is_object()) return {};
  return {k8s::parse_rfc3339(jsonkit::string_at(memo, {"lastSample"})),
          k8s::parse_rfc3339(jsonkit::string_at(memo, {"anchor"}))};
}

json::value write_memo(const SamplingMemo& memo) {
  json::object out;
  if (memo.last_sample) out["lastSample"] = k8s::format_rfc3339_micro(*memo.last_sample);
  if (memo.anchor) out["anchor"] = k8s::format_rfc3339_micro(*memo.anchor);
  return out;
}

// A running Job: at most one read per sampleInterval, from 1 s before the previous read.
void sample_running(BandwidthPass& pass, const api::Job& job) {
  SamplingMemo memo = read_memo(pass.in.memo);
  const auto interval = pass.interval();
  if (auto wait = sample_wait(memo.last_sample, pass.in.now, interval)) {
    pass.requeue(*wait);
    return;
  }
  auto profile = resolve_profile(pass, pass.bm.spec.logProfileRef);
  if (auto* problem = std::get_if<std::string>(&profile)) {
    // Not terminal: a cluster-scoped LogProfile may be created after the run starts.
    pass.event("Warning", reason::kLogProfileNotFound, *problem);
    pass.set_condition(api::kConditionMeasuring, api::condition_status::kFalse,
                       reason::kLogProfileNotFound, *problem);
    pass.write_status();
    pass.requeue(interval);
    return;
  }
  const auto& compiled = std::get<measure::CompiledProfile>(profile);
  const json::value* pod = reporting_pod(pass, job, replicated_job_of(compiled));
  const std::string phase = pod == nullptr ? "" : pod_phase(*pod);
  if (phase != "Running" && phase != "Succeeded") {
    pass.requeue(kWaitInterval);
    return;
  }
  const auto [restarts, waiting] = container_restarts(*pod, compiled.container_name);
  if (waiting) {  // crash-looping: the log holds the crash, not the sweep
    pass.requeue(interval);
    return;
  }
  const auto pod_start = k8s::parse_rfc3339(jsonkit::string_at(*pod, {"status", "startTime"}));
  const auto since = measure::since_time_for_sample(memo.anchor, pod_start, pass.in.now);
  // sinceTime travels with second precision; a read starting a little earlier repeats lines, it
  // never misses one.
  const auto* answer = pass.pod_log({.ns = pass.bm.metadata.namespace_,
                                     .pod = jsonkit::string_at(*pod, {"metadata", "name"}),
                                     .container = compiled.container_name,
                                     .limit_bytes = kLogPageBytes,
                                     .timestamps = true,
                                     .since_time = k8s::format_rfc3339(since)});
  if (answer == nullptr) return;
  pass.requeue(interval);
  if (!answer->ok()) return;  // the next sample tries again
  const auto scan = measure::scan_bandwidth(compiled, answer->text);
  if (scan.rows.empty() && scan.transports.empty()) {
    // After a restart the rows may still come from the same window: keep the anchor.
    if (restarts == 0) {
      memo.anchor = pass.in.now;
      pass.result.memo = write_memo(memo);
    }
    return;
  }
  pass.status.results = measure::merge_running_averages(pass.status.results, scan.rows);
  merge_transports(pass.status.transport, scan.transports);
  if (pass.status.startTime.empty()) pass.status.startTime = pass.now;
  pass.set_condition(api::kConditionMeasuring, api::condition_status::kTrue, reason::kJobRunning,
                     "Referenced Job is running, measurement in progress");
  pass.write_status();
  memo.last_sample = pass.in.now;
  memo.anchor = pass.in.now;
  pass.result.memo = write_memo(memo);
}

// The measured Job decides: its phase, or its absence.
void measure_job(BandwidthPass& pass) {
  const auto& measured = pass.bm;
  const k8s::ObjectRef job_ref{std::string(api::kApiVersion), std::string(api::Job::kKind),
                               measured.metadata.namespace_, measured.spec.jobRef.name};
  const auto found = pass.read(job_ref);
  if (found.state == reconcile::ObjectLookup::State::Unknown) return;
  if (found.state == reconcile::ObjectLookup::State::Absent) {
    // A measurement created before its Job (applied together) waits; one that saw it, ends.
    if (saw_job(measured)) {
      job_gone(pass);
    } else {
      pass.requeue(kWaitInterval);
    }
    return;
  }
  if (found.live) {  // exists; the cache has not caught up yet
    pass.requeue(kWaitInterval);
    return;
  }
  api::Job job;
  try {
    job = api::decode_object<api::Job>(*found.object);
  } catch (const std::exception& error) {
    pass.result.plan.error = std::string("cannot decode the measured Job: ") + error.what();
    return;
  }
  auto uid = measured.metadata.annotations.find(std::string(api::kJobUidAnnotation));
  if (uid != measured.metadata.annotations.end() && uid->second != job.metadata.uid) {
    job_gone(pass);  // a group retry replaced the Job this measurement was made for
    return;
  }
  switch (job_phase(job)) {
    case JobPhase::Succeeded:
      job_succeeded(pass, job);
      break;
    case JobPhase::Failed:
      job_failed(pass, job);
      break;
    case JobPhase::Running:
      sample_running(pass, job);
      break;
    case JobPhase::NotStarted:
      pass.requeue(kWaitInterval);
      break;
  }
}

}  // namespace

reconcile::Result reconcile_bandwidth_measurement(const reconcile::Context& input) {
  return run_measurement_pass<BandwidthPass>(input, api::kBandwidthMeasurementFinalizer,
                                             measure_job);
}

}  // namespace nvcre::measurement
