#pragma once
// The override engine: one mechanism for catalog platform variants, WorkloadRun platform overrides
// and user `overrides` (one mechanism for all three). Including this header gives the whole engine.
#include "api/workflow.hpp"
#include "jsonkit/merge_patch.hpp"
#include "jsonkit/named_merge.hpp"
#include "jsonkit/json_patch.hpp"
#include "overrides/override_error.hpp"
#include "overrides/when_match.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::overrides {

struct ResolvedOverrides {
  api::WorkflowSpec spec;                     // effective spec; spec.overrides kept as given
  std::vector<api::AppliedOverride> applied;  // one entry per matching override, in list order
};

// Applies every override whose `when` matches, in list order, each on the result of the previous
// ones (last writer wins), part by part: jobTemplate (jsonkit::merge_patch), jobTemplatePatch
// (apply_json_patch on the jobTemplate JSON), dependencies (merge into the dependency with the same
// apiVersion/kind/metadata.name via jsonkit::merge_named, else append; a non-empty `when` on
// the override's dependency replaces the base dependency's), orchestration (each set field
// replaces). Every failure throws OverrideError naming the index and the part, e.g.
//   override[3]: jobTemplatePatch: op[0] (replace "/spec/nope"): path "/spec/nope" does not exist
//   override[1]: evaluating when: unsupported CEL construct ...
// Overrides are idempotent only if their patches are; the controller re-applies them to the stored
// spec on every reconcile, never to an already resolved one.
ResolvedOverrides resolve_overrides(const api::WorkflowSpec& spec, const MatchContext& context);

// The overrides a Workflow built ahead of node discovery keeps: those not in `applied` whose
// platform / gpuArchitecture conditions can still match `context` (both are fixed by then); the
// rest of their `when` is evaluated later by the Workflow controller.
std::vector<api::OverrideSpec> pending_overrides(const std::vector<api::OverrideSpec>& overrides,
                                                 const std::vector<api::AppliedOverride>& applied,
                                                 const MatchContext& context);

// The dependencies whose own `when` matches, in order. Throws OverrideError
// `dependency[<i>] (<kind>/<name>): evaluating when: ...`.
std::vector<api::DependencySpec> select_dependencies(
    const std::vector<api::DependencySpec>& dependencies, const MatchContext& context);

// "jobTemplate, jobTemplatePatch, 2 dependencies, orchestration" (the parts present) or "none".
std::string summarize_override_parts(const api::OverrideSpec& override_spec);

// ---- events ---------------------------------------------------------------

inline constexpr std::string_view kOverrideErrorReason =
    "OverrideError";  // Failed condition reason
inline constexpr std::string_view kOverrideAppliedEvent = "OverrideApplied";        // Normal
inline constexpr std::string_view kOverrideNoOpEvent = "OverrideNoOp";              // Warning
inline constexpr std::string_view kNoOverridesMatchedEvent = "NoOverridesMatched";  // Normal

struct OverrideEvent {
  std::string type;  // "Normal" | "Warning"
  std::string reason;
  std::string message;
  bool operator==(const OverrideEvent&) const = default;
};

// The events of one tracked resolution: one per applied override (OverrideNoOp for a no-op, else
// OverrideApplied), or NoOverridesMatched when `override_count` > 0 and nothing matched.
std::vector<OverrideEvent> override_events(const std::vector<api::AppliedOverride>& applied,
                                           std::size_t override_count, const MatchContext& context);

// "Failed to apply overrides: <what>", the Failed condition message.
std::string override_failure_message(const OverrideError& error);

}  // namespace nvcre::overrides
