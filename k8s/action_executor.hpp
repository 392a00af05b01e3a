#pragma once
// Carries out one reconcile Action with the blocking REST client (the actor layer runs this on its
// API worker threads). Every answer is a value: reconcilers decide what a failure means.
#include "k8s/reconcile_plan.hpp"
#include "k8s/resource_mapper.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <string>

namespace nvcre::k8s {

struct ActionResult {
  int code = 200;      // HTTP status; 0 when no answer (transport) or the kind is not served
  std::string reason;  // Status.reason, "Transport", or "NoKindMatch"
  std::string message;
  boost::json::value object;  // the server's object (LiveGet: null for a live NotFound)
  bool ok() const { return code >= 200 && code < 300; }
};

// LiveGet answers a NotFound as success with a null object. ignore_not_found / ignore_conflict
// turn those answers into success for the verbs that carry them.
ActionResult execute_action(RestClient& client, ResourceMapper& mapper, const Action& action);

}  // namespace nvcre::k8s
