#pragma once
// The gang-scheduling rewrite of TrainingRuntime dependencies. It runs after catalog and platform
// overrides resolve, so no override can put `default-scheduler` back, and it is the one function
// the controller, `nvcrectl render` (offline and --dry-run) and the tests share.
#include "api/common_types.hpp"
#include "api/workflow.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::platform {

inline constexpr std::string_view kTrainingRuntimeKind = "TrainingRuntime";
inline constexpr std::string_view kKaiSchedulerName = "kai-scheduler";

// Not configured: absent, or an empty schedulerName. The CRD requires a non-empty name, but
// offline renders never reach the API server, so "" must not pin pods to an empty scheduler.
bool gang_scheduler_configured(const std::optional<api::GangSchedulerSpec>& spec);

// The intent persisted in Workflow.spec.gangScheduler: a copy with queue (default-queue) and
// queueLabelKey (kai.scheduler/queue) filled in; nullopt when not configured.
std::optional<api::GangSchedulerSpec> resolve_gang_scheduler(
    const std::optional<api::GangSchedulerSpec>& spec);

// Rewrites one TrainingRuntime object in place; returns whether anything changed. For every
// object in spec.template.spec.replicatedJobs (other items are skipped): pod spec `schedulerName`
// (overwritten unconditionally) at template.spec.template.spec, the queue label at
// template.metadata.labels and template.spec.template.metadata.labels (other labels kept, missing
// maps created). Plus the KAI + MPI launcher rule. A kind other than TrainingRuntime, or
// replicatedJobs missing / not a list (at any level), leaves the object untouched; so does a job
// holding a non-object where one of those maps belongs (it is skipped, its siblings are not).
bool apply_gang_scheduler_to_runtime(boost::json::object& runtime,
                                     const api::GangSchedulerSpec& resolved);

// ApplyGangSchedulerToDependencies: apply_gang_scheduler_to_runtime to every dependency; a no-op
// when `spec` is not configured. Dependencies of other kinds are left exactly as they were.
void apply_gang_scheduler_to_dependencies(std::vector<api::DependencySpec>& dependencies,
                                          const std::optional<api::GangSchedulerSpec>& spec);

// The KAI + MPI launcher rule on its own: when `scheduler_name` is kai-scheduler, the runtime has
// spec.mlPolicy.mpi and the `launcher` job is gated by exactly dependsOn [{name: node, status:
// Ready}], drop that gate and the JobSet startupPolicy and append (once) the `wait-for-workers`
// init container. Returns whether anything changed.
bool apply_kai_launcher_rule(boost::json::object& runtime, std::string_view scheduler_name);

// PreserveSchedulingFields: after job-scoped renaming (a blind string substitution that may hit a
// queue label equal to a dependency name), put back, per replicated job, the queue labels and pod
// schedulerName the `original` had — only where it had them; nothing is inserted or repaired.
// Returns `renamed` untouched when not configured, not a TrainingRuntime, or when the two
// replicatedJobs lists do not line up.
boost::json::object preserve_scheduling_fields(const boost::json::object& original,
                                               boost::json::object renamed,
                                               const std::optional<api::GangSchedulerSpec>& spec);

}  // namespace nvcre::platform
