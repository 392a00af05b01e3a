#pragma once
// `nvcrectl validate`: admits manifests offline with the API server's rules (schema + CRD rules of
// deploy/crds), so a user sees the same verdict and messages before touching a cluster.
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/validation.hpp"

namespace nvcre::cli {

struct ValidateOptions {
  std::vector<std::string> files;       // each may hold several YAML/JSON documents
  std::optional<std::string> old_file;  // when set: validate an update from this object
  std::string output = "text";          // text | json
};

// Returns the exit code: 0 when every object is admitted, 1 otherwise.
int run_validate(const ValidateOptions& options, std::ostream& out, std::ostream& err);

// kubectl's wording for a rejected object, one cause per line.
std::string format_rejection(std::string_view kind, std::string_view name,
                             const std::vector<api::Cause>& causes);

}  // namespace nvcre::cli
