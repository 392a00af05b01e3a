#pragma once
// The Prometheus series a Job's status projects, under the names and labels NVCRE's dashboards use
// ({namespace, job, workflow}): nvcre_job_status one-hot over in_progress / succeeded / failed
// (reconcile/lifecycle_gauges.hpp: the verdict wins when a leftover carries two); while
// HardwareFailed is True, nvcre_job_failed_nodes (the distinct failed nodes), the first-failure
// counter nvcre_hardware_failed_jobs_total (1) and the per-node counter
// nvcre_hardware_failures_detected_total{node} (1 per node the health rule failed). Projected from
// status, so the series survive a controller restart and go with the Job. Pure: the gauge projector
// applies them.
#include "k8s/metrics.hpp"

#include <boost/json/value.hpp>

#include <vector>

namespace nvcre::job {

std::vector<k8s::GaugeSample> job_gauges(const boost::json::value& job);

}  // namespace nvcre::job
