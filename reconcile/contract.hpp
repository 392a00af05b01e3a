#pragma once
// The one reconcile contract every kind's pure reconcile function follows: what a pass observes
// (Context) and what it decides (Result). The actor shell builds the Context from its cache
// snapshot, performs the Result's reads (LiveGets, pod logs, category builds), re-plans with the
// answers, and then carries out the plan's writes.
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"
#include "reconcile/build_request.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::reconcile {

// A pod log a reconcile wants before it can decide (failure attribution): the last `tail_lines`
// lines of the container, keeping at most `limit_bytes` from the end. Answered by pod name in
// Context::pod_log_tails; a read that fails is answered with text saying so, so the failure is
// recorded rather than retried forever.
struct PodLogWant {
  std::string ns;
  std::string pod;
  std::string container;  // "" = the pod's only/default container
  bool previous = false;  // the previous (crashed) instance
  int tail_lines = 0;     // the asking reconciler sets its bounds
  std::size_t limit_bytes = 0;
  bool operator==(const PodLogWant&) const = default;
};

// Category builds answered so far in this pass, by build_request_key.
using BuildAnswers = std::map<std::string, CategoryBuildAnswer>;

struct Context {
  const boost::json::value* object = nullptr;        // the primary object as cached; nullptr: gone
  const k8s::CacheView& cache;                       // the informer caches of every watched kind
  const k8s::LiveReads& live;                        // answers to this pass's LiveGets
  const std::optional<k8s::ActionOutcome>& outcome;  // the previous plan's failed action
  k8s::Clock::time_point now;
  const std::map<std::string, std::string>& pod_log_tails;  // pod name -> tail, when asked for
  const BuildAnswers& build_answers;                        // answers to this pass's wanted_builds
};

struct Result {
  k8s::ReconcilePlan plan;
  // Reads the reconcile needs before it can decide; while any is unanswered the plan holds no
  // writes (only LiveGets, if any). The shell answers them and re-plans, as with LiveGet.
  std::vector<PodLogWant> wanted_pod_logs;
  std::vector<CategoryBuildRequest> wanted_builds;
};

using Function = std::function<Result(const Context&)>;

}  // namespace nvcre::reconcile
