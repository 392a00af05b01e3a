#pragma once
// UTF-8 well-formedness (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). JSON
// and YAML text must be UTF-8, and so must every string we hand the API server.
#include <cstddef>
#include <optional>
#include <string_view>

namespace nvcre::jsonkit {

// Length (1-4) of the well-formed UTF-8 sequence starting at `at` (< text.size()), or 0 when the
// bytes there are not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// The offset of the first byte that does not start a well-formed sequence; nullopt when `text` is
// all UTF-8.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace nvcre::jsonkit
