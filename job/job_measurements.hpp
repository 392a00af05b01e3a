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

namespace nvcre::job::detail {

std::string goodput_measurement_name(std::string_view job);
std::string bandwidth_measurement_name(std::string_view job);

// Whether `measurement` (a BandwidthMeasurement) was made for this instance of the Job: its
// job-uid annotation names the Job's uid; one without the annotation is taken at its name.
bool measures_job(const boost::json::value& measurement, const api::Job& job);

// Creation failures (other than AlreadyExists) are Warning events, never the Job's failure.
void ensure_goodput_measurement(JobPass& pass, JobStatusDraft& draft);
void ensure_bandwidth_measurement(JobPass& pass, JobStatusDraft& draft);

// True when `outcome` is the failed Create of one of this Job's measurement children.
bool is_measurement_create(const k8s::ActionOutcome& outcome);

}  // namespace nvcre::job::detail
