#pragma once
// Performance thresholds of a succeeded Job: the values its measurement children hold, judged
// against spec.thresholds, recorded once as ValidationFailed (True: the first violation, a
// measurement that never came, a bad key or expression; False: ThresholdsMet). A Job whose
// measurements are not final yet waits (requeue) until spec.measurementTimeout (default 5 min)
// has passed since it succeeded.
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

#include <map>
#include <string>

namespace nvcre::job::detail {

// Thresholds configured, Succeeded True and no ValidationFailed condition at all.
bool awaiting_threshold_evaluation(const api::Job& job, const api::JobStatus& status);

// The registry keys with final data: peak bus / algorithm bandwidth of a BandwidthMeasurement
// completed from this Job's full log; goodput, TFLOPS and step time of a completed
// GoodputMeasurement, each only when positive.
std::map<std::string, double> measured_values(const JobPass& pass);

// Judges the thresholds when the draft awaits it; a no-op otherwise.
void check_thresholds(JobPass& pass, JobStatusDraft& draft);

}  // namespace nvcre::job::detail
