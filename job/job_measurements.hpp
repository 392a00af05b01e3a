#pragma once
// The Job's measurement children: a GoodputMeasurement `<job>-goodput` and a BandwidthMeasurement
// `<job>-bandwidth` (job-uid annotation), created once the workload exists, owned by the Job's
// Workflow so they outlive the Job across iterations. A BandwidthMeasurement left by an earlier
// Job of the same name (a group retry) is deleted; the next pass creates the new one.
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::job::detail {

std::string goodput_measurement_name(std::string_view job);
std::string bandwidth_measurement_name(std::string_view job);

// The measurements of `kind` (GoodputMeasurement / BandwidthMeasurement) in the Job's namespace
// whose spec.jobRef names the Job (the manager's cache indexes that field), so one created under
// another name (by a user, or a test harness) measures the Job too. The Job's
// own child (`<job>-goodput` / `<job>-bandwidth`) comes first, the others follow by name: "the
// first" is then deterministic where the reference takes the first of an index list.
std::vector<const boost::json::value*> measurements_of(const k8s::CacheView& cache,
                                                       const api::Job& job, std::string_view kind);

// Whether `measurement` (a BandwidthMeasurement) was made for this instance of the Job: its
// job-uid annotation names the Job's uid; one without the annotation is taken at its name.
bool measures_job(const boost::json::value& measurement, const api::Job& job);

// Creation failures (other than AlreadyExists) are Warning events, never the Job's failure.
void ensure_goodput_measurement(JobPass& pass, JobStatusDraft& draft);
void ensure_bandwidth_measurement(JobPass& pass, JobStatusDraft& draft);

// True when `outcome` is the failed Create of one of this Job's measurement children.
bool is_measurement_create(const k8s::ActionOutcome& outcome);

}  // namespace nvcre::job::detail
