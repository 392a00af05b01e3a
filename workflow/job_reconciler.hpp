#pragma once
// The Job reconcile (controllers.md §6): a pure function from what is observed (the cached Job, the
// informer caches, live reads, the outcome of the previous plan, the time, pod log tails already
// fetched) to a plan. Finalizer, deletion with TrainJob + pod drain, TrainJob creation with
// create-or-adopt and a gang consistency check, status from the TrainJob (phases, scheduling-block
// accounting), failure attribution with the failure log, and the default node health rule.
// Not covered: stall detection, thresholds, checkpoint restarts, measurement children.
//
// Pod logs are not cached, so they travel as data: when a failure needs the failing container's
// log tail and `pod_log_tails` lacks it, the result names the logs in `wanted_pod_logs` and its
// plan holds no writes (only LiveGets, if any). The caller reads each (the last `tail_lines` lines,
// keeping at most `limit_bytes` from the end) and re-runs with the text under the pod's name; a read
// that fails must still be answered, with text explaining the failure, so the failure is recorded
// rather than retried forever.
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

inline constexpr std::string_view kJobFinalizer = "nvcre.nvidia.com/finalizer";
// Failure log bounds (§6.9.1).
inline constexpr int kFailureLogTailLines = 800;
inline constexpr std::size_t kFailureLogMaxBytes = 32 * 1024;
// ValidationFailed reason when spec.nodeHealthMonitor asks for a rule this controller cannot run.
inline constexpr std::string_view kUnsupportedNodeHealthExpression = "UnsupportedNodeHealthExpression";

struct PodLogRequest {
  std::string ns;
  std::string pod;
  std::string container;
  bool previous = false;  // the container's previous instance (it restarted after failing)
  int tail_lines = kFailureLogTailLines;
  std::size_t limit_bytes = kFailureLogMaxBytes;
  bool operator==(const PodLogRequest&) const = default;
};

struct JobReconcileInput {
  const boost::json::value* object = nullptr;         // the cached Job; nullptr: gone, nothing to do
  const k8s::CacheView& cache;                         // TrainJobs, Pods, Nodes, Workflows
  const k8s::LiveReads& live;                          // answers to this reconcile's earlier LiveGets
  const std::optional<k8s::ActionOutcome>& outcome;    // the previous plan's failed action
  k8s::Clock::time_point now;
  const std::map<std::string, std::string>& pod_log_tails;  // pod name -> log tail already read
};

struct JobReconcileResult {
  k8s::ReconcilePlan plan;
  std::vector<PodLogRequest> wanted_pod_logs;  // non-empty: the plan has no writes; read them, re-run
};

JobReconcileResult reconcile_job(const JobReconcileInput& input);

}  // namespace nvcre::workflow
