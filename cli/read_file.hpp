#pragma once
#include <string>

namespace nvcre::cli {

// The whole file; throws std::runtime_error worded like Go's os errors
// ("open <path>: no such file or directory") so messages match the reference CLI.
std::string read_text_file(const std::string& path);

}  // namespace nvcre::cli
