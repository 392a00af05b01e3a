#include "cli/read_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace nvcre::cli {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::string reason = std::generic_category().message(errno);
    std::string lowered = reason;
    if (!lowered.empty()) lowered[0] = static_cast<char>(std::tolower(lowered[0]));
    throw std::runtime_error("open " + path + ": " + lowered);
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace nvcre::cli
