#pragma once
// The gang consistency contract: the resolved job template and
// TrainingRuntime must still say what the persisted Workflow.spec.gangScheduler intent says. Run at
// Certification build, at Workflow discovery and before each Job is created. It reports and never
// repairs — with one exception the contract names: a queue label an override removed from the
// workload object's labels is put back.
#include "api/common_types.hpp"
#include "api/workflow.hpp"

#include <optional>
#include <string>
#include <vector>

namespace nvcre::platform {

inline constexpr std::string_view kTrainerApiGroup = "trainer.kubeflow.org";
inline constexpr std::string_view kClusterTrainingRuntimeKind = "ClusterTrainingRuntime";
inline constexpr std::size_t kMaxWorkloadLabels = 32;

// Problems with workload-object labels (jobTemplate.spec.workloadMetadata.labels), or nullopt:
// at most 32 keys, no `app.kubernetes.io/managed-by`, nothing under `nvcre.nvidia.com/`, valid
// label keys and values.
std::optional<std::string> workload_labels_problem(
    const std::map<std::string, std::string>& labels);

struct GangConflict {
  std::string reason;  // always workflow_reason::kGangSchedulingConflict
  std::string message;
};

struct ResolvedTemplateCheck {
  std::optional<GangConflict> conflict;  // nullopt: consistent
  api::JobTemplateSpec jobTemplate;      // the input, with a removed queue label restored
  bool queueLabelRestored = false;
};

// ValidateResolvedJobTemplate. With no (configured) intent only the workload labels are checked.
// With an intent, in order: the workload queue label (missing -> restored, equal -> ok,
// different -> conflict); a trainJob workload must exist; its runtimeRef (apiGroup defaults to
// trainer.kubeflow.org, kind to ClusterTrainingRuntime; explicit empty values are kept) must be a
// trainer.kubeflow.org TrainingRuntime supplied among `dependencies` by name; that runtime must
// have replicatedJobs; and every replicated job's effective job-template labels, pod-template
// labels (runtime values with the trainJob's runtimePatches folded in, later patches winning) and
// pod schedulerName must equal the intent.
ResolvedTemplateCheck validate_resolved_job_template(
    api::JobTemplateSpec job_template, const std::vector<api::DependencySpec>& dependencies,
    const std::optional<api::GangSchedulerSpec>& intent);

}  // namespace nvcre::platform
