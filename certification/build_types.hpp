#pragma once
// What building one category's Workflow produces, shared by the pure build stages
// (category_resolution.hpp, workflow_assembly.hpp), their composition (build.hpp) and the build
// services that run them one by one for the controller.
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "reconcile/build_request.hpp"

namespace nvcre::certification {

using reconcile::BuildEvent;
using reconcile::BuildFailure;
using reconcile::CategoryBuild;
using reconcile::CategoryBuildAnswer;

// Why a category could not be built; `reason` is the Certification condition reason.
struct CategoryBuildError : std::runtime_error {
  CategoryBuildError(std::string reason_text, const std::string& message)
      : std::runtime_error(message), reason(std::move(reason_text)) {}
  std::string reason;
};

}  // namespace nvcre::certification
