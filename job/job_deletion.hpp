#pragma once
// Job deletion, with the pod-drain barrier: delete the Job's
// TrainJob (UID precondition, so a same-named replacement is never touched), wait until it and
// the Job's active pods are gone -- a cache miss of the TrainJob is confirmed live -- for at most
// the drain grace, then remove the finalizer.
#include "job/job_pass.hpp"

namespace nvcre::job::detail {

void reconcile_deletion(JobPass& pass);

// Merge patch of metadata.finalizers (conditional on resourceVersion).
k8s::Action finalizers_patch(const api::Job& job, std::vector<std::string> finalizers);

}  // namespace nvcre::job::detail
