#pragma once
// Protobuf bodies as kubectl sends them, written field by field: what kube-sim's decoder tests
// feed it.
#include <cstddef>
#include <string>

namespace nvcre::testing::protobuf {

inline std::string varint(std::size_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  return out + static_cast<char>(value);
}

// A length-delimited field.
inline std::string field(unsigned number, const std::string& payload) {
  return varint(number << 3 | 2) + varint(payload.size()) + payload;
}

inline std::string varint_field(unsigned number, std::size_t value) {
  return varint(number << 3) + varint(value);
}

// The "k8s\0" envelope (runtime.Unknown) around an encoded object; `content_type` is set only when
// the client names it.
inline std::string envelope(const std::string& api_version, const std::string& kind,
                            const std::string& object, const std::string& content_type = "") {
  std::string out =
      std::string("k8s\0", 4) + field(1, field(1, api_version) + field(2, kind)) + field(2, object);
  return content_type.empty() ? out : out + field(4, content_type);
}

}  // namespace nvcre::testing::protobuf
