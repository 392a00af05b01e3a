#pragma once
// Which keys a measurement-related watch event enqueues, as pure functions for the actor shell:
// a measurement changing wakes the Job it measures (thresholds are judged there), and a Job
// changing wakes the measurements that name it (a terminal Job triggers the final read).
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::measurement {

// The "ns/name" key of the Job a cached Bandwidth/GoodputMeasurement names in spec.jobRef; empty
// when `changed` is not a measurement, is not cached or names no Job.
std::string measured_job_key(const k8s::ObjectRef& changed, const k8s::CacheView& cache);

// The "ns/name" keys of the cached measurements of `measurement_kind` whose spec.jobRef names
// the changed Job, sorted; empty when `changed` is not a Job.
std::vector<std::string> measurements_of_job(const k8s::ObjectRef& changed,
                                             const k8s::CacheView& cache,
                                             std::string_view measurement_kind);

}  // namespace nvcre::measurement
