#include "k8s/rfc3339.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace nvcre::k8s {
namespace {

bool digits(std::string_view text, std::size_t at, std::size_t count, int& out) {
  if (at + count > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<Clock::time_point> parse_rfc3339(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::size_t at = 19;
  std::chrono::nanoseconds fraction{0};
  if (at < text.size() && text[at] == '.') {
    ++at;
    long long scale = 100000000, nanos = 0;
    std::size_t start = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) {
      nanos += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == start) return std::nullopt;
    fraction = std::chrono::nanoseconds(nanos);
  }
  std::chrono::seconds offset{0};
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    int oh = 0, om = 0;
    if (!digits(text, at + 1, 2, oh) || at + 3 >= text.size() || text[at + 3] != ':' ||
        !digits(text, at + 4, 2, om)) {
      return std::nullopt;
    }
    offset = std::chrono::hours(oh) + std::chrono::minutes(om);
    if (text[at] == '-') offset = -offset;
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  std::chrono::year_month_day date{std::chrono::year(year),
                                   std::chrono::month(static_cast<unsigned>(month)),
                                   std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::nullopt;
  // The clock counts nanoseconds in 64 bits (years 1678 to 2261); a later year would overflow it.
  if (year < 1678 || year > 2261) return std::nullopt;
  auto time = std::chrono::sys_days(date) + std::chrono::hours(hour) +
              std::chrono::minutes(minute) + std::chrono::seconds(second) - offset;
  return std::chrono::time_point_cast<Clock::duration>(time + fraction);
}

namespace {

enum class Fraction { None, Micro, NanoTrimmed };

std::string format(Clock::time_point time, Fraction fraction) {
  auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  auto days = std::chrono::floor<std::chrono::days>(seconds);
  std::chrono::year_month_day date{days};
  std::chrono::hh_mm_ss clock{seconds - days};
  char buffer[40];
  int n = std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d",
                        static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                        static_cast<unsigned>(date.day()), static_cast<int>(clock.hours().count()),
                        static_cast<int>(clock.minutes().count()),
                        static_cast<int>(clock.seconds().count()));
  std::string out(buffer, static_cast<std::size_t>(n));
  if (fraction == Fraction::Micro) {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(time - seconds).count();
    std::snprintf(buffer, sizeof buffer, ".%06lld", static_cast<long long>(us));
    out += buffer;
  } else if (fraction == Fraction::NanoTrimmed) {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(time - seconds).count();
    if (ns != 0) {
      std::snprintf(buffer, sizeof buffer, ".%09lld", static_cast<long long>(ns));
      std::string digits(buffer);
      while (digits.back() == '0') digits.pop_back();
      out += digits;
    }
  }
  return out + "Z";
}

}  // namespace

std::string format_rfc3339(Clock::time_point time) { return format(time, Fraction::None); }
std::string format_rfc3339_micro(Clock::time_point time) { return format(time, Fraction::Micro); }
std::string format_rfc3339_nano(Clock::time_point time) {
  return format(time, Fraction::NanoTrimmed);
}

}  // namespace nvcre::k8s
