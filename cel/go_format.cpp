#include "cel/go_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace nvcre::cel {

namespace {

std::string non_finite(double value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "+Inf" : "-Inf";
}

}  // namespace

std::string format_go_float(double value) {
  if (!std::isfinite(value)) return non_finite(value);
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  // Shortest round-trip digits in scientific form, "d.ddde+XX", then laid out as Go does.
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string_view text(buffer, static_cast<std::size_t>(result.ptr - buffer));
  const std::size_t e = text.find('e');
  const bool negative = text.front() == '-';
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  std::string out = negative ? "-" : "";
  if (exponent < -4 || exponent >= 6) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int magnitude = std::abs(exponent);
    out += exponent < 0 ? "e-" : "e+";
    if (magnitude < 10) out += '0';
    return out + std::to_string(magnitude);
  }
  if (exponent < 0)
    return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  const auto integer_digits = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= integer_digits)
    return out + digits + std::string(integer_digits - digits.size(), '0');
  return out + digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

std::string format_go_fixed(double value, int precision) {
  if (!std::isfinite(value)) return non_finite(value);
  char buffer[400];
  std::snprintf(buffer, sizeof buffer, "%.*f", precision, value);
  return buffer;
}

std::string quote_go_string(std::string_view text) {
  static constexpr std::string_view kEscaped = "\\\"\a\b\f\n\r\t\v";
  static constexpr std::string_view kLetters = "\\\"abfnrtv";
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (const auto k = kEscaped.find(c); k != std::string_view::npos) {
      out += '\\';
      out += kLetters[k];
    } else if (byte < 0x20 || byte == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string format_go_string_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : " ") + items[i];
  return out + "]";
}

}  // namespace nvcre::cel
