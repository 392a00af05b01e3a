#include "platform/platform_names.hpp"

#include <algorithm>
#include <stdexcept>

namespace nvcre::platform {

std::string platform_names_list() {
  std::string list;
  for (auto name : kPlatformNames) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

bool is_platform_name(std::string_view name) {
  return std::find(kPlatformNames.begin(), kPlatformNames.end(), name) != kPlatformNames.end();
}

void validate_platform_flag(std::string_view value) {
  if (value.empty() || is_platform_name(value)) return;
  throw std::invalid_argument("invalid --platform \"" + std::string(value) + "\": must be one of " +
                              platform_names_list());
}

}  // namespace nvcre::platform
