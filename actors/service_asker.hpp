#pragma once
// How a reconciler gets a k8s::ServiceWant answered. The controller whose reconcile asks supplies
// the asker (actors/controllers.cpp): it knows the question's type and which service actors
// answer it, and runs their requests from inside the reconciler `self`, so the generic reconciler
// and the k8s layer stay free of certification types.
#include "actors/interfaces.hpp"
#include "k8s/reconcile_context.hpp"

#include <any>
#include <functional>
#include <string>

namespace nvcre::actors {

struct ServiceReply {
  std::any answer;    // the asking controller's answer type
  std::string error;  // non-empty: no answer; the pass ends in this error and is retried with backoff
};

// Must call `reply` exactly once.
using ServiceAsker = std::function<void(reconciler_actor::pointer self, const ServiceActors& services,
                                        const k8s::ServiceWant& want, std::function<void(ServiceReply)> reply)>;

}  // namespace nvcre::actors
