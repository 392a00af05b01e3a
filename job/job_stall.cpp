#include "job/job_stall.hpp"

#include "api/conditions.hpp"
#include "api/measurement.hpp"
#include "job/job_measurements.hpp"
#include "k8s/duration.hpp"
#include "measure/goodput.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

constexpr std::chrono::seconds kDefaultStartupStallTimeout{1200};
constexpr std::chrono::seconds kDefaultGoodputSampleInterval{60};
constexpr std::chrono::seconds kDefaultRestartGrace{30};

// The GoodputMeasurement stall detection reads and a restart resets: the first that measures the
// Job (its own `<job>-goodput` when there is one).
const json::value* goodput_measurement(const JobPass& pass) {
  const auto all = measurements_of(pass.in.cache, pass.job, api::GoodputMeasurement::kKind);
  return all.empty() ? nullptr : all.front();
}

std::optional<k8s::Clock::time_point> time_at(const json::value& object,
                                              std::initializer_list<std::string_view> path) {
  return k8s::parse_rfc3339(string_at(object, path));
}

std::chrono::nanoseconds sample_interval(const json::value& gm) {
  auto parsed = k8s::parse_go_duration(string_at(gm, {"spec", "sampleInterval"}));
  return parsed && parsed->count() > 0 ? *parsed : kDefaultGoodputSampleInterval;
}

std::int64_t log_interval(const json::value& gm) {
  const json::value* interval = value_at(gm, {"status", "logInterval"});
  return std::max<std::int64_t>(
      interval != nullptr && interval->is_int64() ? interval->get_int64() : 0, 1);
}

// Later of two optional times.
std::optional<k8s::Clock::time_point> later(std::optional<k8s::Clock::time_point> a,
                                            std::optional<k8s::Clock::time_point> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

}  // namespace

std::optional<std::string> stall_verdict(const JobPass& pass, const api::JobStatus& status,
                                         std::string_view workload_start) {
  if (!pass.job.spec.stallMultiplier) return std::nullopt;
  const json::value* gm = goodput_measurement(pass);
  if (gm == nullptr) return std::nullopt;
  const auto resumed = k8s::parse_rfc3339(status.schedulingResumedTime);
  const auto last_step = time_at(*gm, {"status", "lastStepTimestamp"});
  const double avg_step =
      measure::parse_status_number(string_at(*gm, {"status", "avgStepTimeSec"}));
  const auto buffer = 2 * sample_interval(*gm);
  if (!last_step || string_at(*gm, {"status", "avgStepTimeSec"}).empty()) {
    auto anchor = time_at(*gm, {"status", "applicationStartTime"});
    if (!anchor) anchor = time_at(*gm, {"status", "startTime"});
    if (!anchor) return std::nullopt;  // no evidence yet that the workload is unhealthy
    const auto since = later(later(anchor, k8s::parse_rfc3339(workload_start)), resumed);
    const std::chrono::nanoseconds timeout =
        pass.job.spec.startupStallTimeoutSeconds
            ? std::chrono::seconds(*pass.job.spec.startupStallTimeoutSeconds)
            : kDefaultStartupStallTimeout;
    if (pass.in.now - *since > timeout + buffer)
      return "Workload stalled: no training step observed within startup timeout";
    return std::nullopt;
  }
  if (avg_step <= 0) return std::nullopt;
  const double threshold_seconds =
      *pass.job.spec.stallMultiplier * avg_step * static_cast<double>(log_interval(*gm)) +
      std::chrono::duration<double>(buffer).count();
  const auto since = *later(last_step, resumed);
  if (std::chrono::duration<double>(pass.in.now - since).count() > threshold_seconds)
    return "Workload stalled: no training step within the configured threshold";
  return std::nullopt;
}

bool restart_allowed(const JobPass& pass, const api::JobStatus& status) {
  const auto& checkpoint = pass.job.spec.checkpoint;
  if (!checkpoint) return false;
  if (status.restartCount.value_or(0) >= checkpoint->maxRestarts.value_or(0)) return false;
  // Any measurement of the Job that saw a checkpoint will do.
  for (const json::value* gm :
       measurements_of(pass.in.cache, pass.job, api::GoodputMeasurement::kKind)) {
    const json::value* step = value_at(*gm, {"status", "lastCheckpointStep"});
    if (step != nullptr && step->is_int64() && step->get_int64() > 0) return true;
  }
  return false;
}

namespace {

std::chrono::nanoseconds restart_grace(const api::Job& job) {
  if (const auto& config = job.spec.goodputMeasurement) {
    auto interval = k8s::parse_go_duration(config->sampleInterval);
    if (interval && interval->count() > 0) return 2 * *interval;
  }
  return kDefaultRestartGrace;
}

}  // namespace

std::optional<std::chrono::milliseconds> restart_grace_left(const JobPass& pass) {
  if (!pass.job.status) return std::nullopt;
  const api::Condition* in_progress =
      api::find_condition(pass.job.status->conditions, api::kConditionInProgress);
  if (in_progress == nullptr || in_progress->status != api::condition_status::kTrue ||
      in_progress->reason != api::job_reason::kWorkloadRestarting)
    return std::nullopt;
  // The restart reset the measurement's startTime to its own time (the condition keeps the time
  // the Job first went InProgress); without a measurement nobody is reading, nothing to wait for.
  const json::value* gm = goodput_measurement(pass);
  const auto since = gm == nullptr ? std::nullopt : time_at(*gm, {"status", "startTime"});
  if (!since) return std::nullopt;
  const auto left = restart_grace(pass.job) - (pass.in.now - *since);
  if (left <= std::chrono::nanoseconds::zero()) return std::nullopt;
  return std::chrono::ceil<std::chrono::milliseconds>(left);
}

void restart_from_checkpoint(JobPass& pass, JobStatusDraft& draft, const k8s::ObjectRef& workload) {
  api::JobStatus& status = draft.status();
  status.workloadRef.reset();
  status.workloadStartTime.clear();
  status.schedulingBlockedSince.clear();
  status.schedulingResumedTime.clear();
  status.restartCount = status.restartCount.value_or(0) + 1;
  const auto max_restarts = pass.job.spec.checkpoint->maxRestarts.value_or(0);
  draft.set_phase(api::kConditionInProgress, api::job_reason::kWorkloadRestarting,
                  "Restarting workload from checkpoint (restart " +
                      std::to_string(*status.restartCount) + "/" + std::to_string(max_restarts) +
                      ")");
  auto& actions = pass.result.plan.actions;
  if (pass.in.cache.get(workload) != nullptr) {
    const std::string uid = string_at(*pass.in.cache.get(workload), {"metadata", "uid"});
    actions.push_back(k8s::delete_owned(workload, uid));
  }
  if (const json::value* gm = goodput_measurement(pass)) {
    // The new run's startup budget starts now; its steps are not the old run's.
    json::object reset{{"lastStepTimestamp", nullptr},
                       {"avgStepTimeSec", nullptr},
                       {"applicationStartTime", nullptr},
                       {"startTime", draft.now()}};
    actions.push_back(k8s::make_action(
        k8s::ActionVerb::MergePatchStatus,
        k8s::ObjectRef{std::string(api::kApiVersion), std::string(api::GoodputMeasurement::kKind),
                       pass.job.metadata.namespace_, string_at(*gm, {"metadata", "name"})},
        json::object{{"status", std::move(reset)}}));
  }
  // Time for the measurement to read the last logs of the run before the next one starts.
  pass.result.plan.requeue_after =
      std::chrono::duration_cast<std::chrono::milliseconds>(restart_grace(pass.job));
}

}  // namespace nvcre::job::detail
