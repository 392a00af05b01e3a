#include "api/conditions.hpp"

#include <algorithm>

namespace nvcre::api {

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const Condition& c) { return c.type == type; });
  return it == conditions.end() ? nullptr : &*it;
}

bool condition_is_true(const std::vector<Condition>& conditions, std::string_view type) {
  const Condition* c = find_condition(conditions, type);
  return c != nullptr && c->status == "True";
}

std::optional<std::string> true_execution_type(const std::vector<Condition>& conditions) {
  for (std::string_view type : {kConditionInProgress, kConditionSucceeded, kConditionFailed}) {
    if (condition_is_true(conditions, type)) return std::string(type);
  }
  return std::nullopt;
}

bool is_terminal(const std::vector<Condition>& conditions) {
  return condition_is_true(conditions, kConditionSucceeded) ||
         condition_is_true(conditions, kConditionFailed);
}

bool set_condition(std::vector<Condition>& conditions, Condition condition,
                   std::string_view now_rfc3339) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const Condition& c) { return c.type == condition.type; });
  if (it == conditions.end()) {
    if (condition.lastTransitionTime.empty())
      condition.lastTransitionTime = std::string(now_rfc3339);
    conditions.push_back(std::move(condition));
    return true;
  }
  Condition updated = *it;
  if (updated.status != condition.status) {
    updated.status = condition.status;
    updated.lastTransitionTime = condition.lastTransitionTime.empty()
                                     ? std::string(now_rfc3339)
                                     : condition.lastTransitionTime;
  }
  updated.reason = condition.reason;
  updated.message = condition.message;
  updated.observedGeneration = condition.observedGeneration;
  if (updated == *it) return false;
  *it = std::move(updated);
  return true;
}

ExclusiveConditionChange set_exclusive_condition(std::vector<Condition>& conditions,
                                                 std::string_view type, std::string_view reason,
                                                 std::string_view message, std::int64_t generation,
                                                 std::string_view now_rfc3339) {
  ExclusiveConditionChange change;
  std::optional<std::string> previous_true;
  for (std::string_view t : {kConditionInProgress, kConditionSucceeded, kConditionFailed}) {
    if (condition_is_true(conditions, t)) previous_true = std::string(t);
  }
  for (std::string_view t : {kConditionInProgress, kConditionSucceeded, kConditionFailed}) {
    Condition c;
    c.type = std::string(t);
    c.observedGeneration = generation;
    if (t == type) {
      c.status = "True";
      c.reason = std::string(reason);
      c.message = std::string(message);
    } else {
      c.status = "False";
      c.reason = std::string(kReasonNotApplicable);
    }
    change.changed = set_condition(conditions, std::move(c), now_rfc3339) || change.changed;
  }
  if (previous_true != type) change.transition_to = std::string(type);
  return change;
}

std::string_view transition_event_type(std::string_view new_true_type) {
  return new_true_type == kConditionFailed ? "Warning" : "Normal";
}

}  // namespace nvcre::api
