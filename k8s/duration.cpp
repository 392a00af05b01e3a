#include "k8s/duration.hpp"

#include <cstdint>
#include <utility>

namespace nvcre::k8s {
namespace {

constexpr std::uint64_t kTwo63 = std::uint64_t(1) << 63;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<std::uint64_t> unit_nanos(std::string_view unit) {
  static constexpr std::pair<std::string_view, std::uint64_t> kUnits[] = {
      {"ns", 1},
      {"us", 1'000},
      {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
      {"\xCE\xBCs", 1'000},  // U+03BC Greek small letter mu
      {"ms", 1'000'000},
      {"s", 1'000'000'000},
      {"m", 60'000'000'000},
      {"h", 3'600'000'000'000},
  };
  for (const auto& [name, nanos] : kUnits) {
    if (name == unit) return nanos;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return std::nullopt;

  std::uint64_t total = 0;  // magnitude; up to 2^63 so that -2^63 is reachable
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) return std::nullopt;
    std::uint64_t whole = 0;
    std::size_t i = 0;
    for (; i < s.size() && is_digit(s[i]); ++i) {
      if (whole > kTwo63 / 10) return std::nullopt;
      whole = whole * 10 + std::uint64_t(s[i] - '0');
      if (whole > kTwo63) return std::nullopt;
    }
    const bool have_whole = i > 0;
    s.remove_prefix(i);

    // Fraction digits beyond uint64 precision are read but ignored, as in Go.
    std::uint64_t frac = 0;
    double scale = 1;
    bool have_frac = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      bool overflow = false;
      for (i = 0; i < s.size() && is_digit(s[i]); ++i) {
        if (overflow) continue;
        if (frac > (kTwo63 - 1) / 10) {
          overflow = true;
          continue;
        }
        const std::uint64_t next = frac * 10 + std::uint64_t(s[i] - '0');
        if (next > kTwo63) {
          overflow = true;
          continue;
        }
        frac = next;
        scale *= 10;
      }
      have_frac = i > 0;
      s.remove_prefix(i);
    }
    if (!have_whole && !have_frac) return std::nullopt;  // ".s"

    for (i = 0; i < s.size() && s[i] != '.' && !is_digit(s[i]); ++i) {
    }
    const auto unit = unit_nanos(s.substr(0, i));
    if (!unit) return std::nullopt;  // missing or unknown unit
    s.remove_prefix(i);

    if (whole > kTwo63 / *unit) return std::nullopt;
    whole *= *unit;
    if (frac > 0) {
      // Go computes this in float64; doing the same keeps us nano-identical to it.
      whole += static_cast<std::uint64_t>(double(frac) * (double(*unit) / scale));
      if (whole > kTwo63) return std::nullopt;
    }
    total += whole;
    if (total > kTwo63) return std::nullopt;
  }
  if (!negative && total > kTwo63 - 1) return std::nullopt;
  // Two's-complement negation of the magnitude; -2^63 maps onto itself.
  const std::uint64_t bits = negative ? ~total + 1 : total;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(bits));
}

namespace {

// Prepends the digits of v / 10^prec's fractional part (trailing zeros and a bare '.' omitted);
// returns v / 10^prec.
std::uint64_t prepend_fraction(std::string& out, std::uint64_t v, int prec) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const char digit = char('0' + v % 10);
    print = print || digit != '0';
    if (print) out.insert(out.begin(), digit);
    v /= 10;
  }
  if (print) out.insert(out.begin(), '.');
  return v;
}

void prepend_int(std::string& out, std::uint64_t v) { out.insert(0, std::to_string(v)); }

}  // namespace

std::string format_go_duration(std::chrono::nanoseconds duration) {
  const std::int64_t d = duration.count();
  std::uint64_t u = static_cast<std::uint64_t>(d);
  const bool negative = d < 0;
  if (negative) u = ~u + 1;

  std::string out;
  if (u < 1'000'000'000) {
    // Below a second Go switches to the largest unit that keeps an integer part.
    if (u == 0) return "0s";
    int prec = 0;
    if (u < 1'000) {
      out = "ns";
    } else if (u < 1'000'000) {
      prec = 3;
      out = "\xC2\xB5s";  // µs, U+00B5 as Go prints it
    } else {
      prec = 6;
      out = "ms";
    }
    u = prepend_fraction(out, u, prec);
    prepend_int(out, u);
  } else {
    out = "s";
    u = prepend_fraction(out, u, 9);
    prepend_int(out, u % 60);
    u /= 60;
    if (u > 0) {
      out.insert(out.begin(), 'm');
      prepend_int(out, u % 60);
      u /= 60;
      if (u > 0) {  // hours are the largest unit: days vary in length
        out.insert(out.begin(), 'h');
        prepend_int(out, u);
      }
    }
  }
  if (negative) out.insert(out.begin(), '-');
  return out;
}

bool matches_category_duration_pattern(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t digits_start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == digits_start || i == s.size()) return false;
    const char unit = s[i++];
    if (unit == 'm' && i < s.size() && s[i] == 's') {
      ++i;  // "ms": after a bare "m" an 's' could never start the next group
    } else if (unit != 'h' && unit != 'm' && unit != 's') {
      return false;
    }
  }
  return true;
}

}  // namespace nvcre::k8s
