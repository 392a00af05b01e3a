#pragma once
// The uniform call shape the actor layer uses for every controller's pure reconcile function;
// each controller adapts it to its own input struct (see actors/controllers.cpp).
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::k8s {

struct ReconcileContext {
  const boost::json::value* object = nullptr;  // the primary object; nullptr: gone
  const CacheView& cache;
  const LiveReads& live;
  const std::optional<ActionOutcome>& outcome;
  Clock::time_point now;
  const std::map<std::string, std::string>& pod_log_tails;  // pod name -> tail, when asked for
};

// A pod log tail a reconcile wants (failure attribution): keyed by pod name in pod_log_tails.
struct PodLogWant {
  std::string pod;
  std::string container;   // "" = the pod's only/default container
  bool previous = false;   // the previous (crashed) instance
};

struct ReconcileResult {
  ReconcilePlan plan;
  // Pods (in the object's namespace) whose log tails the reconcile needs before it can decide:
  // the shell fetches them and re-plans, as with LiveGet.
  std::vector<PodLogWant> wanted_pod_logs;
};

using ReconcileFunction = std::function<ReconcileResult(const ReconcileContext&)>;

}  // namespace nvcre::k8s
