#pragma once
// The uniform call shape the actor layer uses for every controller's pure reconcile function;
// each controller adapts it to its own input struct (see actors/controllers.cpp).
#include "k8s/object_cache.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json/value.hpp>

#include <any>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::k8s {

// A question for one of the manager's in-process services (the Certification reconcile asks the
// build services for a category's Workflow). Opaque at this layer on purpose: the k8s layer and
// the reconciler actor only carry it, while the controller that asks also supplies the hook that
// knows the question's type and which service actors answer it (actors/controllers.cpp), so
// nothing generic depends on certification. Answers come back by key, the way LiveGets do.
struct ServiceWant {
  std::string key;    // identifies the question across the re-plans of one pass
  std::any question;  // the asking controller's own request type
};
using ServiceAnswers = std::map<std::string, std::any>;  // want key -> the asking controller's answer type

struct ReconcileContext {
  const boost::json::value* object = nullptr;  // the primary object; nullptr: gone
  const CacheView& cache;
  const LiveReads& live;
  const std::optional<ActionOutcome>& outcome;
  Clock::time_point now;
  const std::map<std::string, std::string>& pod_log_tails;  // pod name -> tail, when asked for
  const ServiceAnswers* service_answers = nullptr;  // answers to this pass's ServiceWants
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
  // Questions for in-process services, answered the same way before the next plan.
  std::vector<ServiceWant> wanted_services;
};

using ReconcileFunction = std::function<ReconcileResult(const ReconcileContext&)>;

}  // namespace nvcre::k8s
