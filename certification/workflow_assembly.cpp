#include "certification/workflow_assembly.hpp"

#include "certification/naming.hpp"
#include "k8s/duration.hpp"
#include "overrides/spec_transforms.hpp"

namespace nvcre::certification {

namespace {

// The reference API types these fields as durations, so a Workflow it creates carries Go's
// spelling ("24h0m0s", not "24h"); ours keep the same value in the same spelling. A text that does
// not parse is left as written for validation to name.
void canonicalise_duration(std::string& text) {
  if (text.empty()) return;
  if (auto parsed = k8s::parse_go_duration(text)) text = k8s::format_go_duration(*parsed);
}

void canonicalise_durations(api::WorkflowSpec& spec) {
  canonicalise_duration(spec.orchestration.execution.timeoutPerJob);
  if (spec.validation && spec.validation->performance)
    canonicalise_duration(spec.validation->performance->measurementTimeout);
}

}  // namespace

CategoryBuild assemble_category_workflow(ResolvedCategory resolved,
                                         const api::Certification& certification) {
  try {
    overrides::apply_resolved_transforms(resolved.spec, resolved.options,
                                         certification.spec.gangScheduler);
  } catch (const overrides::TransformError& error) {
    // The Certification fails as the reference controller fails it: a validation failure of the
    // category's Workflow, named by its category (the Workflow reconciler keeps the gang reason).
    throw CategoryBuildError(
        std::string(api::certification_reason::kWorkflowValidationFailed),
        "applying resolved transforms for " + resolved.key() + ": " + error.what());
  }
  CategoryBuild result;
  result.platform = std::move(resolved.platform);
  result.gpu_architecture = std::move(resolved.gpu_architecture);
  result.applied_overrides = std::move(resolved.applied_overrides);
  result.events = std::move(resolved.events);

  const auto& category = resolved.category;
  api::Workflow& workflow = result.workflow;
  workflow.apiVersion = std::string(api::kApiVersion);
  workflow.kind = std::string(api::Workflow::kKind);
  workflow.metadata.name = workflow_name(certification.metadata.name, category);
  workflow.metadata.namespace_ = certification.metadata.namespace_;
  workflow.metadata.labels = workflow_labels(certification.metadata.name, category);
  workflow.metadata.annotations = workflow_annotations(resolved.options.testScale);
  if (!certification.metadata.uid.empty()) {
    workflow.metadata.ownerReferences.push_back(
        {std::string(api::kApiVersion), std::string(api::Certification::kKind),
         certification.metadata.name, certification.metadata.uid, true, true});
  }
  workflow.spec = std::move(resolved.spec);
  canonicalise_durations(workflow.spec);
  return result;
}

}  // namespace nvcre::certification
