#pragma once
// Status conditions shared by every tier: the mutually exclusive
// execution triple InProgress / Succeeded / Failed plus independent conditions (ValidationFailed,
// HardwareFailed). Same semantics as apimachinery's meta.SetStatusCondition: lastTransitionTime
// moves only when `status` flips; reason, message and observedGeneration are refreshed in place.
#include "api/common_types.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

inline constexpr std::string_view kConditionInProgress = "InProgress";
inline constexpr std::string_view kConditionSucceeded = "Succeeded";
inline constexpr std::string_view kConditionFailed = "Failed";
inline constexpr std::string_view kConditionValidationFailed = "ValidationFailed";
inline constexpr std::string_view kReasonNotApplicable = "NotApplicable";

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);
bool condition_is_true(const std::vector<Condition>& conditions, std::string_view type);
// The type of the triple that is True (InProgress, Succeeded or Failed), if any.
std::optional<std::string> true_execution_type(const std::vector<Condition>& conditions);
// Succeeded or Failed is True.
bool is_terminal(const std::vector<Condition>& conditions);

// Sets one condition; returns whether anything changed.
bool set_condition(std::vector<Condition>& conditions, Condition condition,
                   std::string_view now_rfc3339);

struct ExclusiveConditionChange {
  bool changed = false;
  // Set when the True type of the triple changed (including from "none"): the new True type.
  std::optional<std::string> transition_to;
};

// Sets `type` True with reason/message and the other two of the triple False, reason
// NotApplicable, empty message; observedGeneration = generation on all three.
ExclusiveConditionChange set_exclusive_condition(std::vector<Condition>& conditions,
                                                 std::string_view type, std::string_view reason,
                                                 std::string_view message, std::int64_t generation,
                                                 std::string_view now_rfc3339);

// The transition event's type: Warning when the new True type is Failed, else Normal.
std::string_view transition_event_type(std::string_view new_true_type);

}  // namespace nvcre::api
