#pragma once
// Internal to the measurement reconciles: what one pass of a GoodputMeasurement or
// BandwidthMeasurement shares (the measured Job, the LogProfile, the reporting pod, the pod-log
// reads) and its one status write.
#include "api/conditions.hpp"
#include "k8s/meta.hpp"
#include "api/job.hpp"
#include "api/objects.hpp"
#include "api/measurement.hpp"
#include "measure/log_profile.hpp"
#include "reconcile/contract.hpp"
#include "reconcile/kit.hpp"
#include "reconcile/reads.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <type_traits>
#include <utility>
#include <optional>
#include <string>
#include <variant>

namespace nvcre::measurement::detail {

inline constexpr std::chrono::seconds kDefaultSampleInterval{60};
inline constexpr std::chrono::milliseconds kWaitInterval{15000};  // polling while nothing to read
inline constexpr std::size_t kLogPageBytes = 8u << 20;  // one read, and one page of a full read
inline constexpr std::string_view kDefaultReplicatedJob = "node";

struct MeasurementPass {
  MeasurementPass(const reconcile::Context& input, const boost::json::value& measured_object);

  const reconcile::Context& in;
  const boost::json::value& object;
  k8s::ObjectRef self;
  std::string now;  // RFC 3339
  reconcile::Result result;

  // Cache, else the live answer, else a planned LiveGet (the pass stops).
  reconcile::ObjectLookup read(const k8s::ObjectRef& ref);
  // The answer to `want`, or nullptr after asking for it (the pass stops).
  const reconcile::PodLogAnswer* pod_log(const reconcile::PodLogWant& want);
  bool stopped() const;
  // Only the reads when stopped; everything decided otherwise.
  reconcile::Result take_result();
  void requeue(std::chrono::milliseconds after);
  void event(std::string_view type, std::string_view reason, std::string note);
};

std::chrono::milliseconds sample_interval(std::string_view go_duration);

// One measurement's pass with its typed object and the draft of its status, written once at the
// end of the pass when anything changed.
template <class Measurement>
struct TypedMeasurementPass : MeasurementPass {
  using Status = typename decltype(Measurement::status)::value_type;

  TypedMeasurementPass(const reconcile::Context& input, const boost::json::value& measured,
                       Measurement decoded)
      : MeasurementPass(input, measured),
        measurement(std::move(decoded)),
        status(measurement.status.value_or(Status{})) {}

  Measurement measurement;
  Status status;

  std::chrono::milliseconds interval() const {
    return sample_interval(measurement.spec.sampleInterval);
  }
  void set_condition(std::string_view type, std::string_view condition_status, std::string_view why,
                     std::string_view message) {
    api::set_condition(
        status.conditions,
        api::Condition{.type = std::string(type),
                       .status = std::string(condition_status),
                       .observedGeneration = measurement.metadata.generation.value_or(0),
                       .reason = std::string(why),
                       .message = std::string(message)},
        now);
  }
  void write_status() {
    if (measurement.status ? status == *measurement.status : status == Status{}) return;
    result.plan.actions.push_back(reconcile::status_patch(self, object, api::encode(status)));
  }
};

// A measurement's pass up to its own measuring: decode (a malformed object ends in an error),
// the finalizer removed on deletion (the memo dropped with it) or added first, nothing more for a
// Complete measurement or one without a jobRef; otherwise `measure(pass)` decides.
template <class Pass, class Measure>
reconcile::Result run_measurement_pass(const reconcile::Context& input, std::string_view finalizer,
                                       Measure measure) {
  using Measurement = std::remove_cvref_t<decltype(std::declval<Pass&>().measurement)>;
  if (input.object == nullptr) return {};
  Measurement decoded;
  try {
    decoded = api::decode_object<Measurement>(*input.object);
  } catch (const std::exception& error) {
    reconcile::Result poisoned;
    poisoned.plan.error = "cannot decode " + std::string(Measurement::kKind) + ": " + error.what();
    return poisoned;
  }
  Pass pass(input, *input.object, std::move(decoded));
  const auto& measured = pass.measurement;
  if (!measured.metadata.deletionTimestamp.empty()) {
    if (k8s::has_finalizer(pass.object, finalizer)) {
      pass.result.plan.actions.push_back(
          k8s::remove_finalizer_update(pass.self, pass.object, finalizer));
    }
    pass.result.memo = boost::json::value();
    return pass.take_result();
  }
  if (!k8s::has_finalizer(pass.object, finalizer)) {
    pass.result.plan.actions.push_back(k8s::add_finalizer_patch(pass.self, pass.object, finalizer));
    return pass.take_result();
  }
  const bool complete = measured.status && api::condition_is_true(measured.status->conditions,
                                                                  api::kConditionComplete);
  if (!measured.spec.jobRef.name.empty() && !complete) measure(pass);
  return pass.take_result();
}

// The measured Job's execution state, as the measurement sees it.
enum class JobPhase { NotStarted, Running, Succeeded, Failed };
JobPhase job_phase(const api::Job& job);
// When the Job reached its terminal condition (the anchor of the terminal write).
std::string terminal_time(const api::Job& job);

// The LogProfile compiled, or why not ("LogProfile \"x\" could not be resolved: ...").
std::variant<measure::CompiledProfile, std::string> resolve_profile(MeasurementPass& pass,
                                                                    const std::string& name);

// The cached pods of the Job's TrainJob (its JobSet's name label), unordered; none without one.
// Selected on the stored labels: listing every pod of the namespace parsed them all, a quarter of
// the manager's CPU with 200 Certifications in flight (nvcre_manager_bench under perf).
std::vector<const boost::json::value*> trainjob_pods(const MeasurementPass& pass,
                                                     const api::Job& job);

// The pod of `replicated_job` of the Job's TrainJob whose log reports, from the cache.
const boost::json::value* reporting_pod(const MeasurementPass& pass, const api::Job& job,
                                        std::string_view replicated_job);
std::string pod_phase(const boost::json::value& pod);
// (restart count, waiting) of `container` ("" = the first container) in the pod's status.
std::pair<std::int64_t, bool> container_restarts(const boost::json::value& pod,
                                                 std::string_view container);

// Sampling at most once per `interval`: the wait left before the next sample, or nullopt when one
// is due (no sample yet, or the last is `interval` old).
std::optional<std::chrono::milliseconds> sample_wait(
    std::optional<k8s::Clock::time_point> last_sample, k8s::Clock::time_point now,
    std::chrono::milliseconds interval);

// How long ago `rfc3339` was (zero when it does not parse).
std::chrono::nanoseconds since(std::string_view rfc3339, k8s::Clock::time_point now);

}  // namespace nvcre::measurement::detail
