#pragma once
// A data file compiled into the binary (see cmake/EmbedFiles.cmake).
#include <span>
#include <string_view>

namespace nvcre {

struct EmbeddedFile {
  std::string_view name;  // path relative to the repository root, e.g. "deploy/crds/x.yaml"
  std::string_view content;
};

}  // namespace nvcre
