#include "cli/terminal.hpp"

#include <cstdlib>
#include <string_view>
#include <unistd.h>

namespace nvcre::cli {

bool color_enabled(const char* no_color, const char* term, bool is_terminal) {
  if (no_color != nullptr && no_color[0] != '\0') return false;
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return is_terminal;
}

bool color_enabled_for(std::FILE* stream) {
  return color_enabled(std::getenv("NO_COLOR"), std::getenv("TERM"), isatty(fileno(stream)) != 0);
}

}  // namespace nvcre::cli
