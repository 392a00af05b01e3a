#pragma once
// Stall detection and checkpoint restart of a running Job, from its GoodputMeasurement's stall
// inputs. Startup stall: no training step yet for longer than startupStallTimeoutSeconds (default
// 20 min) since the application started (else since the measurement started), never counting time
// before the workload started or while it was unschedulable. Training stall: no new step for
// stallMultiplier x avgStepTime x logInterval. Both allow two sample intervals for the measurement
// to read the logs. A stalled, failed or vanished workload restarts from its last checkpoint while
// restarts remain; the GoodputMeasurement's stall inputs are reset so the new run gets a fresh
// budget.
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

#include <optional>
#include <string>

namespace nvcre::job::detail {

// The stall message ("Workload stalled: ...") or nullopt. `workload_start` is the Job's
// workloadStartTime, or the time of this first observation of the running workload.
std::optional<std::string> stall_verdict(const JobPass& pass, const api::JobStatus& status,
                                         std::string_view workload_start);

// A checkpoint is configured, restarts remain and the GoodputMeasurement saw a checkpoint.
bool restart_allowed(const JobPass& pass, const api::JobStatus& status);

// Deletes the workload `workload`, clears the run's status fields, counts the restart, resets the
// GoodputMeasurement's stall inputs and leaves the Job InProgress / WorkloadRestarting.
void restart_from_checkpoint(JobPass& pass, JobStatusDraft& draft, const k8s::ObjectRef& workload);

// While a restart's grace runs (2 x the goodput sampleInterval, default 30 s, from the restart)
// the next workload waits, so the measurement can read the last
// logs of the ended run: the time left, or nullopt.
std::optional<std::chrono::milliseconds> restart_grace_left(const JobPass& pass);

}  // namespace nvcre::job::detail
