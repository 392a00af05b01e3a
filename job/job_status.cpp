#include "job/job_status.hpp"

#include "api/conditions.hpp"

#include <boost/json.hpp>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

const api::Condition* true_of_triple(const std::vector<api::Condition>& conditions) {
  for (std::string_view type :
       {api::kConditionInProgress, api::kConditionSucceeded, api::kConditionFailed}) {
    const api::Condition* c = api::find_condition(conditions, type);
    if (c != nullptr && c->status == "True") return c;
  }
  return nullptr;
}

// Top-level merge patch from `before` to `after`: changed members in full, removed ones as null.
json::object status_patch(const json::object& before, const json::object& after) {
  json::object patch;
  for (const auto& [key, value] : after) {
    const json::value* old = before.if_contains(key);
    if (old == nullptr || *old != value) patch[key] = value;
  }
  for (const auto& [key, value] : before) {
    if (!after.contains(key)) patch[key] = nullptr;
  }
  return patch;
}

}  // namespace

k8s::ObjectRef job_ref(const api::Job& job) {
  return k8s::ObjectRef{std::string(api::kApiVersion), std::string(api::Job::kKind),
                        job.metadata.namespace_, job.metadata.name};
}

JobStatusDraft::JobStatusDraft(const api::Job& job, std::string now_rfc3339)
    : job_(job),
      original_(job.status.value_or(api::JobStatus{})),
      draft_(original_),
      now_(std::move(now_rfc3339)) {}

bool JobStatusDraft::terminal() const { return api::is_terminal(draft_.conditions); }

void JobStatusDraft::set_phase(std::string_view type, std::string_view reason,
                               std::string_view message) {
  if (terminal())
    return;  // the "unless" variant: a terminal Job (e.g. timed out by its Workflow) keeps its
             // verdict
  api::set_exclusive_condition(draft_.conditions, type, reason, message,
                               job_.metadata.generation.value_or(0), now_);
}

void JobStatusDraft::set_condition(std::string_view type, std::string_view status,
                                   std::string_view reason, std::string_view message) {
  api::Condition condition{.type = std::string(type),
                           .status = std::string(status),
                           .observedGeneration = job_.metadata.generation.value_or(0),
                           .reason = std::string(reason),
                           .message = std::string(message)};
  api::set_condition(draft_.conditions, std::move(condition), now_);
}

void JobStatusDraft::add_event(std::string_view type, std::string_view reason,
                               std::string_view note) {
  events_.push_back(k8s::EventRecord{job_ref(job_), job_.metadata.uid, std::string(type),
                                     std::string(reason), std::string(note)});
}

void JobStatusDraft::finish(k8s::ReconcilePlan& plan) const {
  if (draft_ != original_) {
    const json::value before = api::encode(original_);
    const json::value after = api::encode(draft_);
    json::object body{
        {"metadata", json::object{{"resourceVersion", job_.metadata.resourceVersion}}},
        {"status", status_patch(before.as_object(), after.as_object())}};
    plan.actions.push_back(
        k8s::make_action(k8s::ActionVerb::MergePatchStatus, job_ref(job_), std::move(body)));
    const api::Condition* was = true_of_triple(original_.conditions);
    const api::Condition* now = true_of_triple(draft_.conditions);
    if (now != nullptr && (was == nullptr || was->type != now->type)) {
      plan.events.push_back(k8s::EventRecord{job_ref(job_), job_.metadata.uid,
                                             std::string(api::transition_event_type(now->type)),
                                             now->reason, now->message});
    }
  }
  plan.events.insert(plan.events.end(), events_.begin(), events_.end());
}

}  // namespace nvcre::job::detail
