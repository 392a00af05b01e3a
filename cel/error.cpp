#include "cel/error.hpp"

#include <algorithm>

namespace nvcre::cel {

// 1-based column in characters (UTF-8 continuation bytes do not count).
std::size_t Diagnostics::column(std::size_t offset) const {
  const auto prefix = source_.substr(0, std::min(offset, source_.size()));
  return 1 + static_cast<std::size_t>(std::count_if(prefix.begin(), prefix.end(), [](char c) {
           return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
         }));
}

void Diagnostics::unsupported(std::size_t begin, std::size_t end, const std::string& detail) const {
  std::string snippet(source_.substr(begin, end > begin ? end - begin : 1));
  if (snippet.size() > 60) {
    std::size_t cut = 57;
    while (cut > 0 && (static_cast<unsigned char>(snippet[cut]) & 0xC0) == 0x80)
      --cut;  // never split a character
    snippet = snippet.substr(0, cut) + "...";
  }
  const std::size_t position = column(begin);
  throw Error(Error::Kind::Unsupported, position, detail,
              "unsupported CEL construct \"" + snippet + "\" at position " +
                  std::to_string(position) + (detail.empty() ? "" : " (" + detail + ")") +
                  "; supported: " + std::string(supported_));
}

void Diagnostics::syntax_error(std::size_t offset, const std::string& detail) const {
  const std::size_t position = column(offset);
  throw Error(Error::Kind::Syntax, position, detail,
              "CEL syntax error at position " + std::to_string(position) + ": " + detail);
}

void Diagnostics::evaluation_error(std::size_t offset, const std::string& detail) const {
  const std::size_t position = column(offset);
  throw Error(Error::Kind::Evaluation, position, detail,
              "CEL evaluation error at position " + std::to_string(position) + ": " + detail);
}

}  // namespace nvcre::cel
