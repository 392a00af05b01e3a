#include "report/markup.hpp"

namespace nvcre::report {

std::string xml_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '&':
        out += "&amp;";
        continue;
      case '<':
        out += "&lt;";
        continue;
      case '>':
        out += "&gt;";
        continue;
      case '"':
        out += attribute ? "&quot;" : "\"";
        continue;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        continue;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        continue;
      case '\r':
        out += "&#13;";
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      out += "\xEF\xBF\xBD";
      continue;
    }
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    // Copy a well-formed multi-byte sequence whole; anything else becomes U+FFFD.
    const int length = c >= 0xF0 && c <= 0xF4   ? 4
                       : c >= 0xE0 && c <= 0xEF ? 3
                       : c >= 0xC2 && c <= 0xDF ? 2
                                                : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (int k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (!valid) {
      out += "\xEF\xBF\xBD";
      continue;
    }
    out.append(text, i, length);
    i += length - 1;
  }
  return out;
}

}  // namespace nvcre::report
