#pragma once
// What the informer cache keeps of an object, like a controller-runtime cache transform: never
// managedFields (no controller reads them; often the largest part of an object), and of the
// kinds we only watch (Pods, TrainJobs, TrainingRuntimes) only the fields the controllers read. A
// cached byte costs about 3-4 bytes of boost::json DOM, so this is most of the manager's memory.
#include <boost/json/value.hpp>

namespace nvcre::k8s {

// Pods: metadata without annotations, spec.nodeName, status (workflow/job_*.cpp, job_watches.cpp).
// TrainJobs: metadata, spec.suspend / spec.managedBy, status (trainjob::workload_state).
// TrainingRuntimes: metadata (a Workflow's cleanup checks ownership and takes the UID).
// Every other kind: only managedFields go.
void trim_for_cache(boost::json::value& object);

}  // namespace nvcre::k8s
