#pragma once
// The post-resolve transforms a category's Workflow goes through after its overrides are resolved,
// in their fixed order: gang rewrite of the runtime dependencies,
// image override, workload-metadata labels (with the gang queue label), then the persisted gang
// intent and the consistency check. Used by the controller and by `nvcrectl certification render`,
// so what a user renders is what the controller creates.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "api/certification.hpp"
#include "api/workflow.hpp"
#include "platform/gang_validation.hpp"

namespace nvcre::overrides {

// A transform refused the Workflow; `reason` is the condition reason to report.
struct TransformError : std::runtime_error {
  TransformError(std::string reason_text, const std::string& message)
      : std::runtime_error(message), reason(std::move(reason_text)) {}
  std::string reason;
};

// Replaces the trainer image in the job template and, in every TrainingRuntime dependency, the
// primary (first) container image of each replicated job plus every init container that ran the
// primary's old image. An empty `image` changes nothing.
void apply_image_override(api::WorkflowSpec& spec, const std::string& image);

// Workload labels in precedence order: those already on the job template, then `option_labels`
// (per key, replacing), then the gang queue label, which is insert-only: an existing equal value is
// fine, a different one throws TransformError (GangSchedulingConflict). The result is validated
// (at most 32 keys, reserved keys, label grammar). Messages name the labels at `labels_path`: the
// job template's for a Certification, spec.workloadMetadata.labels for a WorkloadRun (the field
// its user wrote).
void apply_workload_labels(api::WorkflowSpec& spec,
                           const std::map<std::string, std::string>& option_labels,
                           const std::optional<api::GangSchedulerSpec>& resolved_gang,
                           std::string_view labels_path = platform::kJobTemplateWorkloadLabelsPath);

// All four transforms in order; throws TransformError.
void apply_resolved_transforms(
    api::WorkflowSpec& spec, const api::CategoryOptions& options,
    const std::optional<api::GangSchedulerSpec>& gang_scheduler,
    std::string_view labels_path = platform::kJobTemplateWorkloadLabelsPath);

}  // namespace nvcre::overrides
