#include "measurement/measurement_pass.hpp"

#include "api/conditions.hpp"
#include "api/objects.hpp"
#include "jsonkit/paths.hpp"
#include "k8s/duration.hpp"
#include "k8s/rfc3339.hpp"
#include "measure/worker_pods.hpp"
#include "measurement/profile_cache.hpp"
#include "reconcile/kit.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace nvcre::measurement::detail {
namespace json = boost::json;
using jsonkit::string_at;

MeasurementPass::MeasurementPass(const reconcile::Context& input,
                                 const json::value& measured_object)
    : in(input),
      object(measured_object),
      self{std::string(api::kApiVersion), string_at(measured_object, {"kind"}),
           string_at(measured_object, {"metadata", "namespace"}),
           string_at(measured_object, {"metadata", "name"})},
      now(k8s::format_rfc3339(input.now)) {}

reconcile::ObjectLookup MeasurementPass::read(const k8s::ObjectRef& ref) {
  return reconcile::read_object(in, result, ref);
}

const reconcile::PodLogAnswer* MeasurementPass::pod_log(const reconcile::PodLogWant& want) {
  if (auto it = in.pod_logs.find(reconcile::pod_log_key(want)); it != in.pod_logs.end())
    return &it->second;
  result.wanted_pod_logs.push_back(want);
  return nullptr;
}

bool MeasurementPass::stopped() const { return reconcile::waiting_for_reads(result); }

reconcile::Result MeasurementPass::take_result() {
  if (stopped()) reconcile::keep_only_reads(result);
  return std::move(result);
}

void MeasurementPass::requeue(std::chrono::milliseconds after) {
  result.plan.requeue_after = after;
}

void MeasurementPass::event(std::string_view type, std::string_view reason, std::string note) {
  result.plan.events.push_back(reconcile::make_event(self, object, type, reason, std::move(note)));
}

JobPhase job_phase(const api::Job& job) {
  if (!job.status) return JobPhase::NotStarted;
  const auto& conditions = job.status->conditions;
  if (api::condition_is_true(conditions, api::kConditionSucceeded)) return JobPhase::Succeeded;
  if (api::condition_is_true(conditions, api::kConditionFailed)) return JobPhase::Failed;
  if (api::condition_is_true(conditions, api::kConditionInProgress)) return JobPhase::Running;
  return JobPhase::NotStarted;
}

std::string terminal_time(const api::Job& job) {
  if (!job.status) return {};
  for (auto type : {api::kConditionSucceeded, api::kConditionFailed}) {
    const api::Condition* c = api::find_condition(job.status->conditions, type);
    if (c != nullptr && c->status == api::condition_status::kTrue) return c->lastTransitionTime;
  }
  return {};
}

std::chrono::milliseconds sample_interval(std::string_view go_duration) {
  if (auto parsed = k8s::parse_go_duration(go_duration); parsed && parsed->count() > 0)
    return std::chrono::duration_cast<std::chrono::milliseconds>(*parsed);
  return kDefaultSampleInterval;
}

std::variant<measure::CompiledProfile, std::string> resolve_profile(MeasurementPass& pass,
                                                                    const std::string& name) {
  const std::string prefix = "LogProfile \"" + name + "\" could not be resolved: ";
  const json::value* found = pass.in.cache.get(
      k8s::ObjectRef{std::string(api::kApiVersion), std::string(api::LogProfile::kKind), "", name});
  if (found == nullptr) return prefix + "logprofiles.nvcre.nvidia.com \"" + name + "\" not found";
  try {
    return shared_profile_cache().get(*found);
  } catch (const std::exception& error) {
    return prefix + error.what();
  }
}

std::vector<const json::value*> trainjob_pods(const MeasurementPass& pass, const api::Job& job) {
  if (!job.status || !job.status->workloadRef || job.status->workloadRef->name.empty()) return {};
  k8s::LabelSelector selector;
  try {
    selector = k8s::LabelSelector::from_match_labels(
        {{std::string(measure::kJobSetNameLabel), job.status->workloadRef->name}});
  } catch (const std::invalid_argument&) {
    // Not a valid label value: no pod can carry it as its JobSet name.
    return {};
  }
  return pass.in.cache.list("v1", "Pod", job.metadata.namespace_, selector);
}

const json::value* reporting_pod(const MeasurementPass& pass, const api::Job& job,
                                 std::string_view replicated_job) {
  if (!job.status || !job.status->workloadRef) return nullptr;
  const auto pods = trainjob_pods(pass, job);
  const auto* chosen =
      measure::replicated_job_pod(pods, job.status->workloadRef->name, replicated_job);
  for (const auto* pod : pods) {
    if (chosen != nullptr && pod->if_object() == chosen) return pod;
  }
  return nullptr;
}

std::string pod_phase(const json::value& pod) { return string_at(pod, {"status", "phase"}); }

std::pair<std::int64_t, bool> container_restarts(const json::value& pod,
                                                 std::string_view container) {
  const json::value* statuses = jsonkit::value_at(pod, {"status", "containerStatuses"});
  if (statuses == nullptr || !statuses->is_array()) return {0, false};
  for (const auto& status : statuses->get_array()) {
    if (!container.empty() && string_at(status, {"name"}) != container) continue;
    const json::value* restarts = jsonkit::value_at(status, {"restartCount"});
    const std::int64_t count =
        restarts != nullptr && restarts->is_int64() ? restarts->get_int64() : 0;
    return {count, jsonkit::value_at(status, {"state", "waiting"}) != nullptr};
  }
  return {0, false};
}

std::optional<std::chrono::milliseconds> sample_wait(
    std::optional<k8s::Clock::time_point> last_sample, k8s::Clock::time_point now,
    std::chrono::milliseconds interval) {
  if (!last_sample || now - *last_sample >= interval) return std::nullopt;
  return std::chrono::ceil<std::chrono::milliseconds>(interval - (now - *last_sample));
}

std::chrono::nanoseconds since(std::string_view rfc3339, k8s::Clock::time_point now) {
  auto at = k8s::parse_rfc3339(rfc3339);
  return at ? std::chrono::duration_cast<std::chrono::nanoseconds>(now - *at)
            : std::chrono::nanoseconds::zero();
}

}  // namespace nvcre::measurement::detail
