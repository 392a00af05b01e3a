#include "reconcile/kit.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>

#include "api/codec.hpp"
#include "api/meta.hpp"
#include "k8s/duration.hpp"

namespace nvcre::reconcile {
namespace json = boost::json;
using jsonkit::string_at;
using jsonkit::value_at;

std::vector<api::Condition> status_conditions(const json::value& object) {
  std::vector<api::Condition> out;
  const auto* conditions = value_at(object, {"status", "conditions"});
  if (conditions == nullptr || !conditions->is_array()) return out;
  for (const auto& item : conditions->as_array()) {
    try {
      out.push_back(api::decode<api::Condition>(item));
    } catch (const std::exception&) {
      // A condition we cannot read cannot make the child terminal either.
    }
  }
  return out;
}

namespace {
const api::Condition* find(const std::vector<api::Condition>& conditions, std::string_view type) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const api::Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}
}  // namespace

std::string condition_message(const std::vector<api::Condition>& conditions,
                              std::string_view type) {
  const auto* condition = find(conditions, type);
  return condition != nullptr ? condition->message : std::string();
}

std::string condition_reason(const std::vector<api::Condition>& conditions, std::string_view type) {
  const auto* condition = find(conditions, type);
  return condition != nullptr ? condition->reason : std::string();
}

std::optional<api::TypedLocalObjectReference> status_node_ref(const json::value& object,
                                                              std::string_view field) {
  const auto* status = value_at(object, {"status"});
  const auto* ref =
      status != nullptr && status->is_object() ? status->as_object().if_contains(field) : nullptr;
  if (ref == nullptr || ref->is_null()) return std::nullopt;
  try {
    return api::decode<api::TypedLocalObjectReference>(*ref);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

k8s::ObjectRef workflow_object_ref(std::string ns, std::string name) {
  return k8s::ObjectRef{std::string(api::kApiVersion), "Workflow", std::move(ns), std::move(name)};
}

k8s::ReconcilePlan error_plan(std::string error) {
  k8s::ReconcilePlan plan;
  plan.error = std::move(error);
  return plan;
}

k8s::Action status_patch(const k8s::ObjectRef& self, const json::value& object,
                         json::value new_status) {
  if (const auto* old_status = value_at(object, {"status"});
      old_status != nullptr && old_status->is_object()) {
    auto& fresh = new_status.as_object();
    for (const auto& entry : old_status->as_object()) {
      if (!fresh.contains(entry.key())) fresh[entry.key()] = nullptr;
    }
  }
  k8s::Action action;
  action.verb = k8s::ActionVerb::MergePatchStatus;
  action.target = self;
  action.body = json::object{
      {"metadata",
       json::object{{"resourceVersion", string_at(object, {"metadata", "resourceVersion"})}}},
      {"status", std::move(new_status)}};
  return action;
}

k8s::EventRecord make_event(const k8s::ObjectRef& self, const json::value& object,
                            std::string_view type, std::string_view reason, std::string note) {
  return k8s::EventRecord{self, string_at(object, {"metadata", "uid"}), std::string(type),
                          std::string(reason), std::move(note)};
}

std::string outcome_text(const k8s::ActionOutcome& outcome) {
  if (!outcome.message.empty()) return outcome.message;
  if (!outcome.reason.empty()) return outcome.reason;
  return outcome.code == 0 ? std::string("transport error")
                           : "HTTP " + std::to_string(outcome.code);
}

bool is_already_exists(const k8s::ActionOutcome& outcome) {
  return outcome.action.verb == k8s::ActionVerb::Create && outcome.reason == "AlreadyExists";
}

bool is_transient(const k8s::ActionOutcome& outcome) {
  const int code = outcome.code;
  return code == 0 || code == 408 || code == 429 || code >= 500 ||
         (code == 409 && outcome.reason != "AlreadyExists");
}

bool is_stale_write(const k8s::ActionOutcome& outcome) {
  using k8s::ActionVerb;
  const auto verb = outcome.action.verb;
  const bool write = verb == ActionVerb::MergePatchStatus || verb == ActionVerb::UpdateStatus ||
                     verb == ActionVerb::Update || verb == ActionVerb::MergePatch;
  return write && (outcome.reason == "Conflict" || (outcome.reason.empty() && outcome.code == 409));
}

std::string format_whole_seconds(std::chrono::nanoseconds duration) {
  const auto half = std::chrono::milliseconds(500);
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(duration + half);
  if (seconds.count() < 0) seconds = std::chrono::seconds(0);
  return k8s::format_go_duration(seconds);
}

}  // namespace nvcre::reconcile
