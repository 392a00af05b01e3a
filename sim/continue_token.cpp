#include "sim/continue_token.hpp"

namespace nvcre::sim {

namespace {

std::string hex_encode(const std::string& text) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::optional<std::string> hex_decode(const std::string& text) {
  if (text.size() % 2) return std::nullopt;
  std::string out;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); i += 2) {
    int hi = nibble(text[i]), lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

}  // namespace

std::string encode_continue_token(const std::string& ns, const std::string& name) {
  return hex_encode(ns + '\x1f' + name);
}

std::optional<std::pair<std::string, std::string>> decode_continue_token(const std::string& token) {
  auto decoded = hex_decode(token);
  if (!decoded) return std::nullopt;
  auto sep = decoded->find('\x1f');
  if (sep == std::string::npos) return std::nullopt;
  return std::pair{decoded->substr(0, sep), decoded->substr(sep + 1)};
}

}  // namespace nvcre::sim
