#pragma once
// The one exception type of the override engine. Messages name what failed so that the Workflow
// controller can put them verbatim into the Failed condition ("Failed to apply overrides: <what>"),
// e.g. `override[2]: evaluating when: unsupported CEL construct "size" at position 1; ...`.
#include <stdexcept>

namespace nvcre::overrides {

struct OverrideError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace nvcre::overrides
