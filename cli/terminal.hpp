#pragma once
// Whether nvcrectl may colour what it writes: never when NO_COLOR is set to anything non-empty
// (no-color.org), never for TERM=dumb, and only on a terminal, so pipes and files get plain text.
#include <cstdio>

namespace nvcre::cli {

// The rule, over its inputs (pure, for tests).
bool color_enabled(const char* no_color, const char* term, bool is_terminal);

// The rule for one of the process's streams (stdout or stderr), from the environment.
bool color_enabled_for(std::FILE* stream);

}  // namespace nvcre::cli
