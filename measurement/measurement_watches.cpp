#include "measurement/measurement_watches.hpp"

#include "api/measurement.hpp"
#include "api/job.hpp"
#include "api/meta.hpp"
#include "jsonkit/paths.hpp"

#include <algorithm>

namespace nvcre::measurement {
namespace {

bool is_measurement(const k8s::ObjectRef& ref) {
  return ref.api_version == api::kApiVersion && (ref.kind == api::BandwidthMeasurement::kKind ||
                                                 ref.kind == api::GoodputMeasurement::kKind);
}

}  // namespace

std::string measured_job_key(const k8s::ObjectRef& changed, const k8s::CacheView& cache) {
  if (!is_measurement(changed)) return {};
  const boost::json::value* measurement = cache.get(changed);
  if (measurement == nullptr) return {};
  const std::string job = jsonkit::string_at(*measurement, {"spec", "jobRef", "name"});
  return job.empty() ? std::string() : k8s::object_key(changed.ns, job);
}

std::vector<std::string> measurements_of_job(const k8s::ObjectRef& changed,
                                             const k8s::CacheView& cache,
                                             std::string_view measurement_kind) {
  std::vector<std::string> keys;
  if (changed.api_version != api::kApiVersion || changed.kind != api::Job::kKind) return keys;
  // Every Job change runs this: with 200 Certifications in flight, scanning the namespace's
  // measurements for each one cost 6 % of the manager's CPU (nvcre_manager_bench under perf).
  for (const auto* measurement : cache.list_by_field(api::kApiVersion, measurement_kind, changed.ns,
                                                     api::kJobRefNamePointer, changed.name)) {
    keys.push_back(
        k8s::object_key(changed.ns, jsonkit::string_at(*measurement, {"metadata", "name"})));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace nvcre::measurement
