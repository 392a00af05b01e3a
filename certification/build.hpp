#pragma once
// Building one category's Workflow as the composition of its pure stages:
// detection over the nodes (platform/node_facts.hpp), category resolution
// (category_resolution.hpp), gang transforms and the Workflow object (workflow_assembly.hpp).
// The controller runs the same stages one by one in its build services (actors/); nvcrectl's
// offline render, the benches and tests call this composition, so both stay byte-identical.
// Pure: the nodes are an input, nothing is read or written.
#include <boost/json/value.hpp>

#include <string>
#include <vector>

#include "api/certification.hpp"
#include "catalog/catalog.hpp"
#include "certification/build_types.hpp"

namespace nvcre::certification {

using reconcile::BuildInput;

// Throws CategoryBuildError: CategoryNotFound ("unknown certification category: d/v"),
// WorkflowValidationFailed (build, override or node-count errors, "building workflow for d/v:
// ..."), GangSchedulingConflict (transforms).
CategoryBuild build_category_workflow(
    const api::Certification& certification, const api::CertificateCategory& category,
    const BuildInput& input, const catalog::Catalog& catalog = catalog::Catalog::builtin());

}  // namespace nvcre::certification
