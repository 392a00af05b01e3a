#pragma once
// Building blocks every kind's reconcile shares: reading cached child objects as JSON, conditional
// status patches, events, and the wording of failed actions. Pure helpers over the reconcile-plan
// contract. Owner references and finalizers are Kubernetes metadata: k8s/meta.hpp.
#include <boost/json/value.hpp>

#include <chrono>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/common_types.hpp"
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

namespace nvcre::reconcile {

// status.conditions of a cached object, decoded leniently (malformed entries are skipped).
std::vector<api::Condition> status_conditions(const boost::json::value& object);
// The condition's message / reason when it is present ("" otherwise).
std::string condition_message(const std::vector<api::Condition>& conditions, std::string_view type);
std::string condition_reason(const std::vector<api::Condition>& conditions, std::string_view type);

// status.<field> as a TypedLocalObjectReference (succeededNodesRef / failedNodesRef), if well
// formed.
std::optional<api::TypedLocalObjectReference> status_node_ref(const boost::json::value& object,
                                                              std::string_view field);

k8s::ObjectRef workflow_object_ref(std::string ns, std::string name);

k8s::ReconcilePlan error_plan(std::string error);

// A conditional status write: MergePatchStatus of {"metadata":{"resourceVersion":RV},"status":S}.
// Top-level status keys the old status had and the new one dropped are sent as null, so a merge
// patch clears them as a full update would.
k8s::Action status_patch(const k8s::ObjectRef& self, const boost::json::value& object,
                         boost::json::value new_status);

k8s::EventRecord make_event(const k8s::ObjectRef& self, const boost::json::value& object,
                            std::string_view type, std::string_view reason, std::string note);

// What a failed action said, as Go's %v of the API error would: the Status message, else its
// reason, else the HTTP code.
std::string outcome_text(const k8s::ActionOutcome& outcome);
// 409 Conflict on a write the actor answers by re-reading the object: the outcome carries no
// decision, the fresh object does.
bool is_stale_write(const k8s::ActionOutcome& outcome);
bool is_already_exists(const k8s::ActionOutcome& outcome);
// An error a retry can cure: no answer at all (a dropped connection, a timeout), 408, 429, any 5xx,
// or a 409 that is not AlreadyExists. Such an error never decides a verdict; only the others
// (400, 403, 404, 422, ...) can.
bool is_transient(const k8s::ActionOutcome& outcome);

// Go's Duration.Round(time.Second).String() of a non-negative duration ("4m30s", "0s").
std::string format_whole_seconds(std::chrono::nanoseconds duration);

}  // namespace nvcre::reconcile
