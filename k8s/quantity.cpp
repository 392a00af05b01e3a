#include "k8s/quantity.hpp"

#include <boost/json/value.hpp>
#include <boost/multiprecision/cpp_int.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace nvcre::k8s {
namespace {

using Format = Quantity::Format;
namespace mp = boost::multiprecision;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

struct Suffix {
  std::string_view text;
  Format format;
  int exponent;  // power of 10 (decimal) or of 2 (binary)
};
constexpr Suffix kSuffixes[] = {
    {"", Format::DecimalSI, 0},   {"n", Format::DecimalSI, -9}, {"u", Format::DecimalSI, -6},
    {"m", Format::DecimalSI, -3}, {"k", Format::DecimalSI, 3},  {"M", Format::DecimalSI, 6},
    {"G", Format::DecimalSI, 9},  {"T", Format::DecimalSI, 12}, {"P", Format::DecimalSI, 15},
    {"E", Format::DecimalSI, 18}, {"Ki", Format::BinarySI, 10}, {"Mi", Format::BinarySI, 20},
    {"Gi", Format::BinarySI, 30}, {"Ti", Format::BinarySI, 40}, {"Pi", Format::BinarySI, 50},
    {"Ei", Format::BinarySI, 60},
};
constexpr std::string_view kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct Parts {
  bool negative = false;
  std::string_view int_digits;
  std::string_view frac_digits;
  Format format = Format::DecimalSI;
  std::int32_t exponent = 0;
};

// e/E exponent: like Go, strconv.ParseInt(_, 10, 64) then a wrapping int32 conversion.
std::optional<std::int32_t> parse_exponent(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  const std::uint64_t limit = std::uint64_t(kInt64Max) + negative;
  std::uint64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) return std::nullopt;
    const auto digit = std::uint64_t(c - '0');
    if (v > (limit - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  if (negative) v = ~v + 1;
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
}

std::optional<Parts> scan(std::string_view s) {
  Parts p;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) p.negative = s[i++] == '-';
  auto digits = [&] {
    const std::size_t begin = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return s.substr(begin, i - begin);
  };
  p.int_digits = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    p.frac_digits = digits();
  }
  if (p.int_digits.empty() && p.frac_digits.empty()) return std::nullopt;
  const std::string_view suffix = s.substr(i);
  for (const auto& entry : kSuffixes) {
    if (entry.text == suffix) {
      p.format = entry.format;
      p.exponent = entry.exponent;
      return p;
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    if (auto e = parse_exponent(suffix.substr(1))) {
      p.format = Format::DecimalExponent;
      p.exponent = *e;
      return p;
    }
  }
  return std::nullopt;
}

// Removes trailing zeros, moving them into the exponent.
void normalize(std::string& digits, std::int64_t& exponent) {
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  if (digits.empty()) exponent = 0;
}

// digits * 10^exponent rounded up to a multiple of 10^-9 (digits non-empty, no trailing zeros,
// so anything cut off is non-zero).
void round_up_to_nano(std::string& digits, std::int64_t& exponent) {
  if (exponent >= -9) return;
  const std::int64_t keep = std::int64_t(digits.size()) - (-9 - exponent);
  if (keep <= 0) {
    digits = "1";
  } else {
    digits.resize(std::size_t(keep));
    std::size_t i = digits.size();
    while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
    if (i == 0) {
      digits.insert(digits.begin(), '1');
    } else {
      ++digits[i - 1];
    }
  }
  exponent = -9;
  normalize(digits, exponent);
}

// digits * 10^exponent * 2^b nanos for a binary suffix: rounded up to a nano, capped at 2^63-1
// whole units as Go does for BinarySI. Returns the result as (digits, exponent).
void binary_value(std::string& digits, std::int64_t& exponent, int b) {
  static const mp::cpp_int cap_nanos = mp::cpp_int(kInt64Max) * 1'000'000'000;
  const auto nd = std::int64_t(digits.size());
  mp::cpp_int nanos;
  if (nd - 1 + exponent >= 19) {  // >= 10^19 units, above the cap before the 2^b factor
    nanos = cap_nanos;
  } else if (nd + exponent + 19 <= -9) {  // < 10^(nd+e) * 2^60 < 10^-9
    nanos = 1;
  } else {
    nanos = mp::cpp_int(digits.c_str()) << b;
    const std::int64_t e = exponent + 9;
    if (e >= 0) {
      nanos *= mp::pow(mp::cpp_int(10), unsigned(e));
    } else {
      const mp::cpp_int den = mp::pow(mp::cpp_int(10), unsigned(-e));
      const bool inexact = nanos % den != 0;
      nanos /= den;
      if (inexact) ++nanos;
    }
    if (nanos > cap_nanos) nanos = cap_nanos;
  }
  digits = nanos.str();
  exponent = -9;
  normalize(digits, exponent);
}

std::string_view decimal_suffix(std::int64_t exponent) {
  for (const auto& entry : kSuffixes) {
    if (entry.format == Format::DecimalSI && entry.exponent == exponent) return entry.text;
  }
  return {};
}

}  // namespace

std::optional<Quantity> Quantity::parse(std::string_view text) {
  const auto parts = scan(text);
  if (!parts) return std::nullopt;
  Quantity q;
  q.format_ = parts->format;
  q.digits_.assign(parts->int_digits).append(parts->frac_digits);
  q.digits_.erase(0, std::min(q.digits_.find_first_not_of('0'), q.digits_.size()));
  q.exponent_ = -std::int64_t(parts->frac_digits.size());
  if (parts->format != Format::BinarySI) q.exponent_ += parts->exponent;
  normalize(q.digits_, q.exponent_);
  if (q.is_zero()) return q;
  q.negative_ = parts->negative;
  if (parts->format == Format::BinarySI) {
    binary_value(q.digits_, q.exponent_, parts->exponent);
    // Go: a binary value below one is not expressible in binary suffixes.
    if (std::int64_t(q.digits_.size()) + q.exponent_ <= 0) q.format_ = Format::DecimalSI;
  } else {
    round_up_to_nano(q.digits_, q.exponent_);
  }
  return q;
}

std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
  const int sa = a.is_zero() ? 0 : a.negative_ ? -1 : 1;
  const int sb = b.is_zero() ? 0 : b.negative_ ? -1 : 1;
  if (sa != sb || sa == 0) return sa <=> sb;
  // Same sign, both non-zero: order of magnitude first, then the digits, which (no leading or
  // trailing zeros) compare like numbers when the magnitudes agree.
  std::strong_ordering magnitude =
      std::int64_t(a.digits_.size()) + a.exponent_ <=> std::int64_t(b.digits_.size()) + b.exponent_;
  if (magnitude == 0) magnitude = a.digits_.compare(b.digits_) <=> 0;
  return sa > 0 ? magnitude : 0 <=> magnitude;
}

std::string Quantity::canonical() const {
  if (is_zero()) return "0";
  const std::string sign = negative_ ? "-" : "";
  Format format = format_;
  std::string whole;  // the integral value, for binary formatting
  if (format == Format::BinarySI) {
    // Go shows fractional binary values, or ones below 1024 in magnitude, in decimal. Binary
    // values are capped below 2^63, so `whole` has at most 19 digits.
    if (exponent_ >= 0) whole = std::string(digits_).append(std::size_t(exponent_), '0');
    if (exponent_ < 0 || whole.size() < 4 || (whole.size() == 4 && whole < "1024")) {
      format = Format::DecimalSI;
    }
  }
  if (format == Format::BinarySI) {
    std::uint64_t v = std::stoull(whole);
    std::size_t power = 0;
    while (power + 1 < std::size(kBinarySuffixes) && v % 1024 == 0) {
      v /= 1024;
      ++power;
    }
    return sign + std::to_string(v) + std::string(kBinarySuffixes[power]);
  }
  // Decimal: exponent lowered to a multiple of 3 (1.5 -> 1500m, 1e100 -> 10e99), as Go does.
  std::string mantissa = digits_;
  std::int64_t exponent = exponent_;
  const std::int64_t extra = ((exponent % 3) + 3) % 3;
  mantissa.append(std::size_t(extra), '0');
  exponent -= extra;
  std::string out = sign + mantissa;
  if (format == Format::DecimalSI && exponent >= -9 && exponent <= 18) {
    out += decimal_suffix(exponent);
  } else if (exponent != 0) {
    out += 'e';
    out += std::to_string(exponent);
  }
  return out;
}

std::int64_t Quantity::scaled_value(std::int64_t scale) const {
  if (is_zero()) return 0;
  const std::int64_t shift = exponent_ - scale;
  const std::int64_t int_digits = std::int64_t(digits_.size()) + shift;
  std::uint64_t magnitude = 0;
  bool saturated = int_digits > 19;
  if (!saturated) {
    for (std::int64_t i = 0; i < int_digits; ++i) {
      const char c = i < std::int64_t(digits_.size()) ? digits_[std::size_t(i)] : '0';
      magnitude = magnitude * 10 + std::uint64_t(c - '0');  // 19 digits fit in uint64
    }
    // No trailing zeros: anything cut off is non-zero; round away from zero like Go's int64 path.
    if (shift < 0) ++magnitude;
    saturated = saturated || magnitude > std::uint64_t(kInt64Max);
  }
  if (saturated) return negative_ ? std::numeric_limits<std::int64_t>::min() : kInt64Max;
  return negative_ ? -std::int64_t(magnitude) : std::int64_t(magnitude);
}

std::int64_t Quantity::value() const { return scaled_value(0); }
std::int64_t Quantity::milli_value() const { return scaled_value(-3); }

bool is_valid_quantity(std::string_view text) { return scan(text).has_value(); }

std::optional<Quantity> quantity_from_json(const boost::json::value& value) {
  if (const auto* s = value.if_string()) return Quantity::parse(*s);
  if (const auto* i = value.if_int64()) return Quantity::parse(std::to_string(*i));
  if (const auto* u = value.if_uint64()) return Quantity::parse(std::to_string(*u));
  if (const auto* d = value.if_double()) {
    if (!std::isfinite(*d) || std::trunc(*d) != *d) return std::nullopt;
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.0f", *d);  // exact for integral doubles
    return Quantity::parse(buf);
  }
  return std::nullopt;
}

}  // namespace nvcre::k8s
