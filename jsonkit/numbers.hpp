#pragma once
// Double -> int64 conversions for JSON numbers. Casting a double outside int64's range is
// undefined behaviour, and JSON documents from users or the network can hold any double.
#include <cmath>
#include <cstdint>
#include <optional>

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

}  // namespace nvcre::jsonkit
