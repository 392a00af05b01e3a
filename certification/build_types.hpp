#pragma once
// What building one category's Workflow produces, shared by the pure build stages
// (category_resolution.hpp, workflow_assembly.hpp), their composition (build.hpp) and the build
// services that run them one by one for the controller.
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "api/workflow.hpp"

namespace nvcre::certification {

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

// A CategoryBuildError as a value: what a build service answers instead of throwing across actors.
struct BuildFailure {
  std::string reason;
  std::string message;
  bool operator==(const BuildFailure&) const = default;
};

using CategoryBuildAnswer = std::variant<CategoryBuild, BuildFailure>;

}  // namespace nvcre::certification
