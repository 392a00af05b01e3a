#pragma once
// The workload half of a Job reconcile: create (or adopt) the TrainJob
// when the Job has none yet, else derive the Job's status from it.
#include "job/job_pass.hpp"
#include "job/job_status.hpp"

namespace nvcre::job::detail {

// No workloadRef yet: gang check, build, Create; an AlreadyExists outcome adopts our own TrainJob,
// waits for a terminating foreign one and fails on a live foreign one.
void create_workload(JobPass& pass, JobStatusDraft& draft);

// workloadRef set: TrainJob phase -> Job conditions, with scheduling-block accounting.
void update_from_workload(JobPass& pass, JobStatusDraft& draft);

}  // namespace nvcre::job::detail
