#include "measurement/goodput_reconciler.hpp"

#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/rfc3339.hpp"
#include "measure/goodput.hpp"
#include "measure/log_events.hpp"
#include "measure/log_lines.hpp"
#include "measure/log_paging.hpp"
#include "measure/worker_pods.hpp"
#include "measurement/measurement_pass.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::measurement {
namespace json = boost::json;
using namespace detail;
namespace reason = api::measurement_reason;
using Clock = k8s::Clock;

namespace {

constexpr std::string_view kRunningMessage = "Referenced Job is running, measurement in progress";
constexpr std::string_view kNoDataMessage =
    "Job succeeded but no goodput was computed; check spec.logProfileRef";

struct GoodputPass : TypedMeasurementPass<api::GoodputMeasurement> {
  using TypedMeasurementPass::TypedMeasurementPass;
  api::GoodputMeasurement& gm = measurement;
};

// The reconciler's memo between samples: when it last sampled, the last log time read (the
// anchor of the next read) and a checkpoint save still waiting for its done line.
struct SamplingMemo {
  std::optional<Clock::time_point> last_sample;
  std::optional<Clock::time_point> anchor;
  std::optional<measure::PendingCheckpointSave> pending_save;
};

SamplingMemo read_memo(const json::value& memo) {
  if (!memo.is_object()) return {};
  SamplingMemo out{k8s::parse_rfc3339(jsonkit::string_at(memo, {"lastSample"})),
                   k8s::parse_rfc3339(jsonkit::string_at(memo, {"anchor"})), std::nullopt};
  const json::value* step = jsonkit::value_at(memo, {"pendingSave", "step"});
  auto at = k8s::parse_rfc3339(jsonkit::string_at(memo, {"pendingSave", "at"}));
  if (step != nullptr && step->is_int64() && at)
    out.pending_save = measure::PendingCheckpointSave{step->get_int64(), *at};
  return out;
}

json::value write_memo(const SamplingMemo& memo) {
  json::object out;
  if (memo.last_sample) out["lastSample"] = k8s::format_rfc3339_micro(*memo.last_sample);
  if (memo.anchor) out["anchor"] = k8s::format_rfc3339_micro(*memo.anchor);
  if (memo.pending_save) {
    out["pendingSave"] = json::object{{"step", memo.pending_save->step},
                                      {"at", k8s::format_rfc3339_micro(memo.pending_save->at)}};
  }
  return out;
}

// Worker-0 and the last worker of the Job's TrainJob (the same pod when there is one), from the
// cache; nullptr when the TrainJob has no pod yet.
struct Workers {
  const json::value* first = nullptr;
  const json::value* last = nullptr;
};

Workers worker_pods(const MeasurementPass& pass, const api::Job& job) {
  if (!job.status || !job.status->workloadRef || job.status->workloadRef->name.empty()) return {};
  const auto pods = trainjob_pods(pass, job);
  const auto ordered = measure::trainjob_worker_pods(pods, job.status->workloadRef->name);
  if (ordered.empty()) return {};
  auto value_of = [&](const json::object* chosen) -> const json::value* {
    for (const auto* pod : pods) {
      if (pod->if_object() == chosen) return pod;
    }
    return nullptr;
  };
  return {value_of(ordered.front()), value_of(ordered.back())};
}

bool is_multi(const measure::CompiledProfile& profile) {
  return profile.worker_strategy && profile.worker_strategy->type == api::worker_strategy::kMulti;
}

// One read of a window: the lines' events and the latest kubelet time (nullopt: failed read).
struct WindowRead {
  std::vector<measure::LogEvent> events;
  std::optional<Clock::time_point> last_log_time;
};

WindowRead scan_answer(const measure::CompiledProfile& profile, const std::string& text) {
  const auto split = measure::split_log_lines(text);
  const auto lines = split.all_lines();
  WindowRead read{measure::scan_events(profile, lines), std::nullopt};
  for (const auto& line : lines) {
    if (line.timestamp && (!read.last_log_time || *line.timestamp > *read.last_log_time))
      read.last_log_time = line.timestamp;
  }
  return read;
}

// The window since `since` of worker-0 (and, for Multi, of the last worker when it differs and
// `both` allows): asks for the logs; nullopt while they are not in, or when every read failed
// (`failed` set).
std::optional<WindowRead> read_window(GoodputPass& pass, const measure::CompiledProfile& profile,
                                      const Workers& workers, bool both, Clock::time_point since,
                                      bool& failed) {
  auto want = [&](const json::value* pod) {
    return pass.pod_log({.ns = pass.gm.metadata.namespace_,
                         .pod = jsonkit::string_at(*pod, {"metadata", "name"}),
                         .container = profile.container_name,
                         .limit_bytes = kLogPageBytes,
                         .timestamps = true,
                         .since_time = k8s::format_rfc3339(since)});
  };
  const auto* first = want(workers.first);
  const reconcile::PodLogAnswer* last = nullptr;
  if (both) last = want(workers.last);
  if (first == nullptr || (both && last == nullptr)) return std::nullopt;
  const bool first_ok = first->ok();
  const bool last_ok = both && last->ok();
  if (!first_ok && !last_ok) {
    failed = true;
    return std::nullopt;
  }
  if (!last_ok) return scan_answer(profile, first->text);
  if (!first_ok) return scan_answer(profile, last->text);
  // Rank 0 logs the lifecycle, the last rank the steps (by default; the profile may swap them).
  WindowRead a = scan_answer(profile, first->text);
  WindowRead b = scan_answer(profile, last->text);
  const auto& strategy = *profile.worker_strategy;
  const bool lifecycle_last = strategy.lifecyclePod == api::worker_strategy::kLast;
  const bool steps_last = strategy.trainingStepPod == api::worker_strategy::kLast;
  WindowRead out;
  out.events = measure::combine_worker_events(lifecycle_last ? b.events : a.events,
                                              steps_last ? b.events : a.events);
  out.last_log_time = (steps_last ? b : a).last_log_time;
  if (!out.last_log_time) out.last_log_time = (steps_last ? a : b).last_log_time;
  return out;
}

bool reads_both(const measure::CompiledProfile& profile, const Workers& workers,
                bool require_running) {
  if (!is_multi(profile) || workers.last == nullptr || workers.last == workers.first) return false;
  return !require_running || pod_phase(*workers.last) == "Running";
}

std::optional<Clock::time_point> pod_start(const json::value& pod) {
  return k8s::parse_rfc3339(jsonkit::string_at(pod, {"status", "startTime"}));
}

// Not terminal: a cluster-scoped LogProfile may be created after the run starts.
void profile_unresolved(GoodputPass& pass, const std::string& problem) {
  pass.event("Warning", reason::kLogProfileNotFound, problem);
  pass.set_condition(api::kConditionMeasuring, api::condition_status::kFalse,
                     reason::kLogProfileNotFound, problem);
  pass.write_status();
  pass.requeue(pass.interval());
}

std::optional<Clock::time_point> last_activity(const api::GoodputMeasurementStatus& status) {
  return k8s::parse_rfc3339(status.applicationStopTime);
}

// The workload went away (a restart is in progress): the interruption is recorded once, and the
// next read starts from the new pod.
void workload_gone(GoodputPass& pass, SamplingMemo memo) {
  if (measure::interruption_detected(pass.status, false, 0)) {
    measure::record_interruption(pass.status, measure::kInterruptionWorkloadRestarted,
                                 last_activity(pass.status).value_or(pass.in.now));
    pass.write_status();
    memo.anchor.reset();
    pass.result.memo = write_memo(memo);
  }
  pass.requeue(pass.interval());
}

void sample_running(GoodputPass& pass, const api::Job& job) {
  SamplingMemo memo = read_memo(pass.in.memo);
  const auto interval = pass.interval();
  if (auto wait = sample_wait(memo.last_sample, pass.in.now, interval)) {
    pass.requeue(*wait);
    return;
  }
  auto profile = resolve_profile(pass, pass.gm.spec.logProfileRef);
  if (auto* problem = std::get_if<std::string>(&profile)) return profile_unresolved(pass, *problem);
  const auto& compiled = std::get<measure::CompiledProfile>(profile);
  if (!job.status || !job.status->workloadRef || job.status->workloadRef->name.empty())
    return workload_gone(pass, memo);
  const Workers workers = worker_pods(pass, job);
  if (workers.first == nullptr || pod_phase(*workers.first) != "Running") {
    pass.requeue(interval);
    return;
  }
  if (measure::interruption_detected(pass.status, true, job.status->restartCount.value_or(0))) {
    // The Job restarted its workload between two samples.
    measure::record_interruption(pass.status, measure::kInterruptionWorkloadRestarted,
                                 last_activity(pass.status).value_or(pass.in.now));
    memo.anchor.reset();
  }
  const auto since =
      measure::since_time_for_sample(memo.anchor, pod_start(*workers.first), pass.in.now);
  bool failed = false;
  auto window =
      read_window(pass, compiled, workers, reads_both(compiled, workers, true), since, failed);
  if (!window && !failed) return;
  pass.requeue(interval);
  if (window) {
    auto update = measure::merge_goodput_window(
        pass.status,
        {compiled, window->events, window->last_log_time, pass.in.now, memo.pending_save, false});
    pass.status = std::move(update.status);
    memo.pending_save = update.pending_save;
    if (window->last_log_time) memo.anchor = window->last_log_time;
    pass.set_condition(api::kConditionMeasuring, api::condition_status::kTrue, reason::kJobRunning,
                       kRunningMessage);
    memo.last_sample = pass.in.now;
  }
  pass.write_status();  // a failed read still keeps an interruption just recorded
  pass.result.memo = write_memo(memo);
}

// When the container stopped (its current or previous termination), from the pod's status.
std::optional<Clock::time_point> container_finished(const json::value& pod,
                                                    std::string_view container) {
  const json::value* statuses = jsonkit::value_at(pod, {"status", "containerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return std::nullopt;
  for (const auto& status : statuses->get_array()) {
    if (!container.empty() && jsonkit::string_at(status, {"name"}) != container) continue;
    for (const char* state : {"state", "lastState"}) {
      auto at = k8s::parse_rfc3339(jsonkit::string_at(status, {state, "terminated", "finishedAt"}));
      if (at) return at;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// The final window: from a sample interval before the last step (never before the pod started,
// nor more than the lookback before the anchor) up to the anchor.
Clock::time_point final_window_start(const GoodputPass& pass, const json::value& pod,
                                     Clock::time_point anchor) {
  std::optional<Clock::time_point> since;
  if (auto last_step = k8s::parse_rfc3339(pass.status.lastStepTimestamp))
    since = *last_step - pass.interval();
  if (auto started = pod_start(pod); started && (!since || *started > *since)) since = started;
  const auto oldest = anchor - measure::kMaxLogLookback;
  return since && *since > oldest ? *since : oldest;
}

struct Terminal {
  bool succeeded = false;
  Clock::time_point anchor;
};

void finish(GoodputPass& pass, const Terminal& end) {
  std::string_view why = reason::kJobFailed;
  std::string_view message = "Referenced Job failed";
  if (end.succeeded) {
    const bool measured = measure::parse_status_number(pass.status.result) > 0;
    why = measured ? reason::kJobSucceeded : reason::kNoDataCollected;
    message = measured ? std::string_view("Referenced Job completed successfully") : kNoDataMessage;
  }
  pass.status.completionTime = k8s::format_rfc3339(end.anchor);
  pass.set_condition(api::kConditionComplete, api::condition_status::kTrue, why, message);
  pass.set_condition(api::kConditionMeasuring, api::condition_status::kFalse, why,
                     "Measurement completed");
  pass.write_status();
  pass.result.memo = json::value();
}

// The Job ended: one final window merged up to the anchor, then the terminal write. A window
// that cannot be read leaves the sampled numbers as they are.
void job_ended(GoodputPass& pass, const api::Job& job, bool succeeded) {
  const auto anchor = k8s::parse_rfc3339(terminal_time(job)).value_or(pass.in.now);
  const Terminal end{succeeded, anchor};
  const SamplingMemo memo = read_memo(pass.in.memo);
  const Workers workers = worker_pods(pass, job);
  auto profile = resolve_profile(pass, pass.gm.spec.logProfileRef);
  const auto* compiled = std::get_if<measure::CompiledProfile>(&profile);
  std::optional<WindowRead> window;
  if (compiled != nullptr && workers.first != nullptr) {
    bool failed = false;
    window = read_window(pass, *compiled, workers, reads_both(*compiled, workers, false),
                         final_window_start(pass, *workers.first, anchor), failed);
    if (!window && !failed) return;
  }
  // Without a window (no profile, no pod, a failed read) the totals still run to the anchor.
  const measure::CompiledProfile unresolved{};
  pass.status = measure::merge_goodput_window(
                    pass.status, {compiled != nullptr ? *compiled : unresolved,
                                  window ? std::span<const measure::LogEvent>(window->events)
                                         : std::span<const measure::LogEvent>(),
                                  window ? window->last_log_time : std::nullopt, anchor,
                                  memo.pending_save, true})
                    .status;
  if (!succeeded) {
    std::optional<Clock::time_point> stopped = last_activity(pass.status);
    if (!stopped && workers.first != nullptr)
      stopped = container_finished(*workers.first, compiled ? compiled->container_name : "");
    measure::account_job_failure(pass.status, std::min(stopped.value_or(anchor), anchor));
  }
  finish(pass, end);
}

void measure_job(GoodputPass& pass) {
  const auto& measured = pass.gm;
  const k8s::ObjectRef job_ref{std::string(api::kApiVersion), std::string(api::Job::kKind),
                               measured.metadata.namespace_, measured.spec.jobRef.name};
  const auto found = pass.read(job_ref);
  if (found.state == reconcile::ObjectLookup::State::Unknown) return;
  if (found.state == reconcile::ObjectLookup::State::Absent || found.live) {
    // Not created yet (the Job controller creates the measurement with it), or the cache has
    // not caught up.
    pass.requeue(found.state == reconcile::ObjectLookup::State::Absent ? pass.interval()
                                                                       : kWaitInterval);
    return;
  }
  api::Job job;
  try {
    job = api::decode_object<api::Job>(*found.object);
  } catch (const std::exception& error) {
    pass.result.plan.error = std::string("cannot decode the measured Job: ") + error.what();
    return;
  }
  switch (job_phase(job)) {
    case JobPhase::Succeeded:
      job_ended(pass, job, true);
      break;
    case JobPhase::Failed:
      job_ended(pass, job, false);
      break;
    case JobPhase::Running:
      sample_running(pass, job);
      break;
    case JobPhase::NotStarted:
      pass.requeue(pass.interval());
      break;
  }
}

}  // namespace

reconcile::Result reconcile_goodput_measurement(const reconcile::Context& input) {
  return run_measurement_pass<GoodputPass>(input, api::kGoodputMeasurementFinalizer, measure_job);
}

}  // namespace nvcre::measurement
