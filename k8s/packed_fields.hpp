#pragma once
// Strings packed one after another into one std::string, each prefixed with its length (LEB128),
// so any string, even one holding NULs, round-trips. Compact per-object facts (the cache's label
// and field index, object gauge labels) are kept this way: one allocation instead of one per
// string.
#include <cstddef>
#include <string>
#include <string_view>

namespace nvcre::k8s {

inline void append_field(std::string& out, std::string_view field) {
  std::size_t length = field.size();
  do {
    auto byte = static_cast<unsigned char>(length & 0x7f);
    length >>= 7;
    if (length != 0) byte |= 0x80;
    out.push_back(static_cast<char>(byte));
  } while (length != 0);
  out.append(field);
}

// Reads the field at `at` and moves `at` past it.
inline std::string_view next_field(std::string_view in, std::size_t& at) {
  std::size_t length = 0;
  int shift = 0;
  while (at < in.size()) {
    const auto byte = static_cast<unsigned char>(in[at++]);
    length |= static_cast<std::size_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
  }
  std::string_view field = in.substr(at, length);
  at += field.size();
  return field;
}

}  // namespace nvcre::k8s
