#pragma once
// Building one category's Workflow (controllers.md §4.5): catalog lookup, options, GPU defaults,
// node count, catalog build, override resolution, post-resolve transforms, then the Workflow object
// with its name, labels and owner. Pure: the nodes are an input, nothing is read or written.
#include <boost/json/value.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/certification.hpp"
#include "api/workflow.hpp"
#include "catalog/catalog.hpp"

namespace nvcre::certification {

struct BuildInput {
  std::vector<boost::json::value> nodes;  // the target's nodes (offline render: one synthetic node)
  // Architecture decided by the caller (offline: --gpu-arch or the nodeSelector's product label);
  // empty means "detect from the nodes by majority vote".
  std::string gpu_architecture;
  // Offline render: nodesPerJob defaults to 1 (no cluster to count) and every override is removed
  // from the output once resolved; the controller keeps the ones it must still evaluate.
  bool offline = false;
};

struct BuildEvent {
  std::string type;  // Normal | Warning
  std::string reason;
  std::string message;
};

struct CategoryBuild {
  api::Workflow workflow;
  std::string platform;
  std::string gpu_architecture;
  std::vector<api::AppliedOverride> applied_overrides;
  std::vector<BuildEvent> events;  // GPUArchitectureDefaults, NICResourceDetection
};

// Why a category could not be built; `reason` is the Certification condition reason.
struct CategoryBuildError : std::runtime_error {
  CategoryBuildError(std::string reason_text, const std::string& message)
      : std::runtime_error(message), reason(std::move(reason_text)) {}
  std::string reason;
};

// Throws CategoryBuildError: CategoryNotFound ("unknown certification category: d/v"),
// WorkflowValidationFailed (build, override or node-count errors, "building workflow for d/v: ..."),
// GangSchedulingConflict (transforms).
CategoryBuild build_category_workflow(const api::Certification& certification,
                                      const api::CertificateCategory& category, const BuildInput& input,
                                      const catalog::Catalog& catalog = catalog::Catalog::builtin());

}  // namespace nvcre::certification
