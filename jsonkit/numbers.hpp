#pragma once
// Number conversions for JSON and text fields. Double -> int64: casting a double outside int64's
// range is undefined behaviour, and JSON documents from users or the network can hold any double.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace nvcre::jsonkit {

// 2^63: the first double above every int64 (INT64_MAX itself is not a double).
inline constexpr double kTwoTo63 = 9223372036854775808.0;

// `number` as an int64 when it is a whole number int64 can hold (2.0, -7.0), else nullopt
// (0.5, 1e19, NaN, infinity).
inline std::optional<std::int64_t> exact_int64(double number) {
  if (!(number >= -kTwoTo63 && number < kTwoTo63) || std::trunc(number) != number)
    return std::nullopt;
  return static_cast<std::int64_t>(number);
}

// `number` truncated toward zero and clamped to int64's range; NaN gives 0.
inline std::int64_t clamped_int64(double number) {
  if (std::isnan(number)) return 0;
  if (number >= kTwoTo63) return INT64_MAX;
  if (number < -kTwoTo63) return INT64_MIN;
  return static_cast<std::int64_t>(number);
}

// `text` as a T when all of it is one decimal integer T can hold ("42", "-7"), else nullopt ("",
// " 4", "4x", "+4", out of range).
template <typename T>
std::optional<T> whole_number(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace nvcre::jsonkit
