#include "job/job_thresholds.hpp"

#include "api/conditions.hpp"
#include "api/measurement.hpp"
#include "job/job_failure.hpp"
#include "job/job_measurements.hpp"
#include "k8s/duration.hpp"
#include "measure/goodput.hpp"
#include "measure/threshold_check.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

constexpr std::chrono::minutes kDefaultMeasurementTimeout{5};

// The first BandwidthMeasurement made for this instance of the Job (by jobRef and job uid).
const json::value* bandwidth_measurement(const JobPass& pass) {
  for (const json::value* m :
       measurements_of(pass.in.cache, pass.job, api::BandwidthMeasurement::kKind)) {
    if (measures_job(*m, pass.job)) return m;
  }
  return nullptr;
}

void add_bandwidth(const JobPass& pass, std::map<std::string, double>& values) {
  const json::value* object = bandwidth_measurement(pass);
  if (object == nullptr) return;
  const auto conditions = reconcile::status_conditions(*object);
  const api::Condition* complete = api::find_condition(conditions, api::kConditionComplete);
  // Only a measurement completed from the whole log of a succeeded Job is final: a live sample
  // can stop short of the largest sizes, where the peak is.
  if (complete == nullptr || complete->status != api::condition_status::kTrue ||
      complete->reason != api::measurement_reason::kJobSucceeded)
    return;
  const json::array* results = jsonkit::find_array(object->as_object(), {"status", "results"});
  if (results == nullptr || results->empty()) return;
  double bus = 0;
  double alg = 0;
  for (const auto& row : *results) {
    bus = std::max(bus, measure::parse_status_number(string_at(row, {"busBW"})));
    alg = std::max(alg, measure::parse_status_number(string_at(row, {"algBW"})));
  }
  values["busBandwidthGBps"] = bus;
  values["algBandwidthGBps"] = alg;
}

void add_goodput(const JobPass& pass, std::map<std::string, double>& values) {
  const auto goodput = measurements_of(pass.in.cache, pass.job, api::GoodputMeasurement::kKind);
  const json::value* object = goodput.empty() ? nullptr : goodput.front();
  if (object == nullptr ||
      !api::condition_is_true(reconcile::status_conditions(*object), api::kConditionComplete))
    return;
  const std::pair<const char*, const char*> fields[] = {{"goodputRatio", "result"},
                                                        {"avgTFLOPsPerGPU", "avgTFLOPSPerGPU"},
                                                        {"avgStepTimeSec", "avgStepTimeSec"}};
  for (const auto& [key, field] : fields) {
    if (double value = measure::parse_status_number(string_at(*object, {"status", field}));
        value > 0)
      values[key] = value;
  }
}

k8s::Clock::duration measurement_timeout(const api::Job& job) {
  if (auto parsed = k8s::parse_go_duration(job.spec.measurementTimeout);
      parsed && parsed->count() > 0)
    return std::chrono::duration_cast<k8s::Clock::duration>(*parsed);
  return kDefaultMeasurementTimeout;
}

k8s::Clock::duration succeeded_for(const api::JobStatus& status, k8s::Clock::time_point now) {
  const api::Condition* succeeded =
      api::find_condition(status.conditions, api::kConditionSucceeded);
  if (succeeded == nullptr) return {};
  auto since = k8s::parse_rfc3339(succeeded->lastTransitionTime);
  return since ? now - *since : k8s::Clock::duration{};
}

}  // namespace

bool awaiting_threshold_evaluation(const api::Job& job, const api::JobStatus& status) {
  return !job.spec.thresholds.empty() &&
         api::condition_is_true(status.conditions, api::kConditionSucceeded) &&
         api::find_condition(status.conditions, api::kConditionValidationFailed) == nullptr;
}

std::map<std::string, double> measured_values(const JobPass& pass) {
  std::map<std::string, double> values;
  add_bandwidth(pass, values);
  add_goodput(pass, values);
  return values;
}

void check_thresholds(JobPass& pass, JobStatusDraft& draft) {
  if (!awaiting_threshold_evaluation(pass.job, draft.status())) return;
  ensure_bandwidth_measurement(pass, draft);
  const auto waited = succeeded_for(draft.status(), pass.in.now);
  const auto timeout = measurement_timeout(pass.job);
  const auto verdict =
      measure::judge_thresholds(pass.job.spec.thresholds, measured_values(pass), waited, timeout);
  using Outcome = measure::ThresholdVerdict::Outcome;
  if (verdict.outcome == Outcome::Pending) {
    // Back when the timeout strikes, if nothing (a measurement completing) brings it back sooner.
    const auto left = timeout - waited;
    pass.result.plan.requeue_after = std::min<std::chrono::milliseconds>(
        k8s::kDefaultRequeue,
        std::chrono::ceil<std::chrono::milliseconds>(left) + std::chrono::milliseconds(1));
    return;
  }
  const bool failed = verdict.outcome != Outcome::Met;
  api::JobStatus& status = draft.status();
  if (failed && status.failedNodes.empty()) {
    for (const auto& node : group_nodes(pass.job, pass.pods)) {
      status.failedNodes.push_back(
          api::FailedNode{.name = node,
                          .reason = std::string(api::node_failure_reason::kThresholdViolation),
                          .message = verdict.message});
    }
  }
  draft.set_condition(api::kConditionValidationFailed,
                      failed ? api::condition_status::kTrue : api::condition_status::kFalse,
                      verdict.reason, verdict.message);
  draft.add_event(failed ? "Warning" : "Normal", verdict.reason, verdict.message);
}

}  // namespace nvcre::job::detail
