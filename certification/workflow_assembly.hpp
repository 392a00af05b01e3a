#pragma once
// The last stage of a category build: the post-resolve gang
// transforms and validation (transforms.hpp), then the Workflow object with its name, labels,
// annotations and controller owner reference. Pure; throws CategoryBuildError
// (WorkflowValidationFailed). The gang_scheduler actor runs it for the controller.
#include "api/certification.hpp"
#include "certification/build_types.hpp"
#include "certification/category_resolution.hpp"

namespace nvcre::certification {

CategoryBuild assemble_category_workflow(ResolvedCategory resolved,
                                         const api::Certification& certification);

}  // namespace nvcre::certification
