#pragma once
// What one reconcile pass of a user-facing kind (Certification, WorkloadRun) carries, and its one
// status write. Each kind derives its Pass from PassBase and adds its decoded object.
#include "api/common_types.hpp"
#include "reconcile/contract.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::reconcile {

struct PassBase {
  const Context& in;
  const boost::json::value& object;  // the primary object as observed
  k8s::ObjectRef self;
  k8s::ReconcilePlan plan;

  k8s::EventRecord event(std::string_view type, std::string_view reason, std::string note) const;
  // The outcome of the previous plan when it concerns `verb` on `target`.
  const k8s::ActionOutcome* outcome_for(k8s::ActionVerb verb, const k8s::ObjectRef& target) const;
};

// The status write of a pass whose status changed, the way Go's mutate-then-write callback is:
// the conditional MergePatchStatus of `new_status`, followed by the transition event when the
// True condition of the execution triple changed from `observed` to `current`.
// `transition_event` false: the caller records its own (Warning) event for this change.
void commit_status_change(PassBase& pass, boost::json::value new_status,
                          const std::vector<api::Condition>& observed,
                          const std::vector<api::Condition>& current, bool transition_event = true);

}  // namespace nvcre::reconcile
