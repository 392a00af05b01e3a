#pragma once
// The Job reconcile: a pure function from what is observed (the cached Job, the
// informer caches, live reads, the outcome of the previous plan, the time, pod log tails already
// fetched) to a plan. Finalizer, deletion with TrainJob + pod drain, TrainJob creation with
// create-or-adopt and a gang consistency check, status from the TrainJob (phases, scheduling-block
// accounting), failure attribution with the failure log, and the node health rule.
// Not covered: stall detection, thresholds, checkpoint restarts, measurement children.
//
// Pod logs are not cached, so they travel as data: when a failure needs the failing container's
// log tail and `pod_logs` lacks it, the result names it in `wanted_pod_logs` (see
// reconcile/contract.hpp) and its plan holds no writes.
#include "reconcile/contract.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::job {

inline constexpr std::string_view kJobFinalizer = "nvcre.nvidia.com/finalizer";
// Failure log bounds.
inline constexpr int kFailureLogTailLines = 800;
inline constexpr std::size_t kFailureLogMaxBytes = 32 * 1024;

reconcile::Result reconcile_job(const reconcile::Context& input);

}  // namespace nvcre::job
