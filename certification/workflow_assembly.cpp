#include "certification/workflow_assembly.hpp"

#include "certification/naming.hpp"
#include "overrides/spec_transforms.hpp"

namespace nvcre::certification {

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
  return result;
}

}  // namespace nvcre::certification
