#pragma once
// One object's reconcile loop, isolated from every other object's. A pass: run the
// pure reconcile over a cache snapshot, perform its LiveGets / pod-log reads (then re-plan) and get
// its category builds answered by the build services (typed requests; then the pass resumes from
// where it asked, or re-plans when it gave no continuation), then
// carry out its writes in order; a failed write is handed back to the pure function
// (ActionOutcome), a 409 on the object itself re-plans from a live copy. An exception in the pure
// function ends this actor only; its controller sees the crash and retries with backoff.
#include "actors/interfaces.hpp"
#include "actors/shared_cache.hpp"
#include "reconcile/contract.hpp"

#include <caf/typed_response_promise.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace nvcre::actors {

// API calls are awaited without an actor-level timeout: the client bounds each attempt and its
// retries (as client-go does), and a timeout here only abandoned calls that still ran, their
// writes landing unseen, while costing a clock wake-up per request.
struct ReconcilerConfig {
  k8s::ObjectRef primary;
  reconcile::Function reconcile;
  std::shared_ptr<const SharedCache> cache;
  api_client_actor api;
  event_recorder_actor recorder;
  ServiceActors services;
  std::function<k8s::Clock::time_point()> clock;
  int max_plans_per_pass = 12;  // a pure function that keeps failing the same way ends the pass
  std::chrono::milliseconds build_timeout{30000};  // per build service request
  boost::json::value memo;  // the key's memo from its previous reconciler (null: none)
};

struct ReconcilerPass {
  caf::typed_response_promise<PassResult> promise;
  std::optional<boost::json::value> fresh_primary;  // live copy after a 409 on the object
  bool primary_refreshed = false;
  k8s::LiveReads live;
  std::optional<k8s::ActionOutcome> outcome;
  std::vector<k8s::ActionOutcome> held;  // creates that met AlreadyExists, with their live holder
  std::map<std::string, reconcile::PodLogAnswer> pod_logs;  // by pod_log_key
  reconcile::BuildAnswers build_answers;
  reconcile::Result result;
  int plans = 0;
};

struct ReconcilerState {
  ReconcilerConfig config;
  std::optional<ReconcilerPass> pass;
  boost::json::value memo;  // Context::memo: kept between passes, replaced by a clean pass's memo
  static inline const char* name = "reconciler";
};

reconciler_actor::behavior_type reconciler(reconciler_actor::stateful_pointer<ReconcilerState> self,
                                           ReconcilerConfig config);

}  // namespace nvcre::actors
