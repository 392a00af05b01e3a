#include "jsonkit/utf8.hpp"

namespace nvcre::jsonkit {

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  const std::size_t length = lead < 0x80           ? 1
                             : (lead >> 5) == 0x6  ? 2
                             : (lead >> 4) == 0xE  ? 3
                             : (lead >> 3) == 0x1E ? 4
                                                   : 0;
  if (length == 0 || at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  }
  if (length == 2 && lead < 0xC2) return 0;  // overlong
  if (length == 3) {
    unsigned cp = ((lead & 0x0Fu) << 12) | ((byte(at + 1) & 0x3Fu) << 6) | (byte(at + 2) & 0x3Fu);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong or surrogate
  }
  if (length == 4) {
    unsigned cp = ((lead & 0x07u) << 18) | ((byte(at + 1) & 0x3Fu) << 12) |
                  ((byte(at + 2) & 0x3Fu) << 6) | (byte(at + 3) & 0x3Fu);
    if (cp < 0x10000 || cp > 0x10FFFF) return 0;
  }
  return length;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    if (static_cast<unsigned char>(text[at]) < 0x80) {  // ASCII, the common case
      ++at;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text, at);
    if (length == 0) return at;
    at += length;
  }
  return std::nullopt;
}

}  // namespace nvcre::jsonkit
