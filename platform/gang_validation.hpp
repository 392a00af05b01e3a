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

// Where workload-object labels live, as the messages name them: on a Workflow's (or
// Certification's) job template, or on a WorkloadRun / Job spec.
inline constexpr std::string_view kJobTemplateWorkloadLabelsPath =
    "spec.jobTemplate.spec.workloadMetadata.labels";
inline constexpr std::string_view kSpecWorkloadLabelsPath = "spec.workloadMetadata.labels";

// Problems with workload-object labels, or nullopt: at most 32 keys, no
// `app.kubernetes.io/managed-by`, nothing under `nvcre.nvidia.com/`, valid label keys and values
// (keys in sorted order, the first problem). The reference's wording, e.g.
// `<path>["k"]: invalid label key: <errors>`.
std::optional<std::string> workload_labels_problem(
    const std::map<std::string, std::string>& labels,
    std::string_view field_path = kJobTemplateWorkloadLabelsPath);

// The insert/same/conflict rule's conflict, in the reference's wording:
// `<path>["<key>"]: conflicting label value "<found>", expected "<expected>"`.
std::string conflicting_label_message(std::string_view field_path, std::string_view key,
                                      std::string_view found, std::string_view expected);

struct GangConflict {
  std::string reason;  // always workflow_reason::kGangSchedulingConflict
  std::string message;
};

struct ResolvedTemplateCheck {
  std::optional<GangConflict> conflict;  // nullopt: consistent
  api::JobTemplateSpec jobTemplate;      // the input, with a removed queue label restored
  bool queueLabelRestored = false;
};

// ValidateResolvedJobTemplate, with the reference's messages ("gangScheduler is configured with
// queue "q" but TrainingRuntime "r" replicatedJob "node" sets label "k" to "v" on
// template.metadata.labels", ...). With no (configured) intent only the workload labels are
// checked. With an intent, in order: the workload queue label (missing -> restored, equal -> ok,
// different -> conflict); a trainJob workload must exist; its runtimeRef (apiGroup defaults to
// trainer.kubeflow.org, kind to ClusterTrainingRuntime; explicit empty values are kept) must be a
// trainer.kubeflow.org TrainingRuntime supplied among `dependencies` by name; that runtime must
// have replicatedJobs; and every replicated job's effective job-template labels, pod-template
// labels (runtime values with the trainJob's runtimePatches folded in, later patches winning) and
// pod schedulerName must equal the intent.
ResolvedTemplateCheck validate_resolved_job_template(
    api::JobTemplateSpec job_template, const std::vector<api::DependencySpec>& dependencies,
    const std::optional<api::GangSchedulerSpec>& intent,
    std::string_view labels_path = kJobTemplateWorkloadLabelsPath);

}  // namespace nvcre::platform
