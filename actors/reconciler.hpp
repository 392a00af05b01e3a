#pragma once
// One object's reconcile loop (ARCHITECTURE.md "Failure isolation per object"). A pass: run the
// pure reconcile over a cache snapshot, perform its LiveGets / pod-log reads and get its service
// questions answered (ServiceAsker: e.g. a category build), re-plan with the answers, then
// carry out its writes in order; a failed write is handed back to the pure function
// (ActionOutcome), a 409 on the object itself re-plans from a live copy. An exception in the pure
// function ends this actor only; its controller sees the crash and retries with backoff.
#include "actors/interfaces.hpp"
#include "actors/service_asker.hpp"
#include "actors/shared_cache.hpp"
#include "k8s/reconcile_context.hpp"

#include <caf/typed_response_promise.hpp>

#include <functional>
#include <memory>
#include <optional>

namespace nvcre::actors {

struct ReconcilerConfig {
  k8s::ObjectRef primary;
  k8s::ReconcileFunction reconcile;
  std::shared_ptr<const SharedCache> cache;
  api_server_actor api;
  event_recorder_actor recorder;
  ServiceAsker ask_service;  // unset: a reconcile that asks a service fails its pass
  ServiceActors services;
  std::function<k8s::Clock::time_point()> clock;
  int max_plans_per_pass = 12;  // a pure function that keeps failing the same way ends the pass
  std::chrono::milliseconds api_timeout{60000};
};

struct ReconcilerPass {
  caf::typed_response_promise<PassResult> promise;
  std::optional<boost::json::value> fresh_primary;  // live copy after a 409 on the object
  bool primary_refreshed = false;
  k8s::LiveReads live;
  std::optional<k8s::ActionOutcome> outcome;
  std::map<std::string, std::string> pod_logs;
  k8s::ServiceAnswers service_answers;
  k8s::ReconcileResult result;
  int plans = 0;
};

struct ReconcilerState {
  ReconcilerConfig config;
  std::optional<ReconcilerPass> pass;
  static inline const char* name = "reconciler";
};

reconciler_actor::behavior_type reconciler(reconciler_actor::stateful_pointer<ReconcilerState> self,
                                           ReconcilerConfig config);

}  // namespace nvcre::actors
