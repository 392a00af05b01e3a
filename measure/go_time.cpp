#include "measure/go_time.hpp"

#include <array>
#include <cctype>
#include <chrono>
#include <cstdint>

namespace nvcre::measure {
namespace {

// The layout elements, as Go's time package names them.
enum class Elem {
  None,
  LongMonth,
  Month,
  NumMonth,
  ZeroMonth,
  LongWeekDay,
  WeekDay,
  Day,
  UnderDay,
  ZeroDay,
  YearDay,  // "002" / "__2": recognised so the error can name it, not supported
  Hour,
  Hour12,
  ZeroHour12,
  Minute,
  ZeroMinute,
  Second,
  ZeroSecond,
  LongYear,
  Year,
  PM,
  LowerPM,
  ZoneName,          // MST
  ZoneColon,         // -07:00   (Z07:00 when utc_z)
  ZoneColonSeconds,  // -07:00:00
  Zone,              // -0700
  ZoneSeconds,       // -070000
  ZoneShort,         // -07
  Frac0,             // .000: exactly that many digits
  Frac9,             // .999: optional, any number of digits
};

struct Chunk {
  std::string_view prefix;  // literal text before the element
  Elem elem = Elem::None;
  std::string_view token;  // the element as the layout spells it
  std::string_view rest;   // the layout after it
  bool utc_z = false;      // a Z07... zone: "Z" in the value means UTC
};

bool is_digit(std::string_view s, std::size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}
bool starts_lower(std::string_view s) { return !s.empty() && s[0] >= 'a' && s[0] <= 'z'; }

Chunk make(std::string_view layout, std::size_t at, std::size_t length, Elem elem,
           bool utc_z = false) {
  return {layout.substr(0, at), elem, layout.substr(at, length), layout.substr(at + length), utc_z};
}

// The zone element at `at` (after a '-' or 'Z'), or None.
Chunk zone_chunk(std::string_view layout, std::size_t at) {
  const bool utc_z = layout[at] == 'Z';
  const std::string_view tail = layout.substr(at + 1);
  struct Form {
    std::string_view text;
    Elem elem;
  };
  static constexpr std::array<Form, 5> forms{{{"070000", Elem::ZoneSeconds},
                                              {"07:00:00", Elem::ZoneColonSeconds},
                                              {"0700", Elem::Zone},
                                              {"07:00", Elem::ZoneColon},
                                              {"07", Elem::ZoneShort}}};
  for (const auto& form : forms) {
    if (tail.starts_with(form.text))
      return make(layout, at, form.text.size() + 1, form.elem, utc_z);
  }
  return {};
}

Chunk month_or_weekday(std::string_view layout, std::size_t i) {
  const std::string_view here = layout.substr(i);
  if (here.starts_with("January")) return make(layout, i, 7, Elem::LongMonth);
  if (here.starts_with("Jan") && !starts_lower(here.substr(3)))
    return make(layout, i, 3, Elem::Month);
  if (here.starts_with("Monday")) return make(layout, i, 6, Elem::LongWeekDay);
  if (here.starts_with("Mon") && !starts_lower(here.substr(3)))
    return make(layout, i, 3, Elem::WeekDay);
  if (here.starts_with("MST")) return make(layout, i, 3, Elem::ZoneName);
  return {};
}

Chunk fraction(std::string_view layout, std::size_t i) {
  if (i + 1 >= layout.size() || (layout[i + 1] != '0' && layout[i + 1] != '9')) return {};
  const char digit = layout[i + 1];
  std::size_t j = i + 1;
  while (j < layout.size() && layout[j] == digit) ++j;
  if (is_digit(layout, j)) return {};
  return make(layout, i, j - i, digit == '0' ? Elem::Frac0 : Elem::Frac9);
}

// The next element of `layout` (Go's nextStdChunk); elem None when only literal text is left.
Chunk next_chunk(std::string_view layout) {
  static constexpr std::array<Elem, 6> zero_x{Elem::ZeroMonth,  Elem::ZeroDay,    Elem::ZeroHour12,
                                              Elem::ZeroMinute, Elem::ZeroSecond, Elem::Year};
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const std::string_view here = layout.substr(i);
    Chunk found;
    switch (layout[i]) {
      case 'J':
      case 'M':
        found = month_or_weekday(layout, i);
        break;
      case '0':
        if (here.size() >= 2 && here[1] >= '1' && here[1] <= '6')
          return make(layout, i, 2, zero_x[static_cast<std::size_t>(here[1] - '1')]);
        if (here.starts_with("002")) return make(layout, i, 3, Elem::YearDay);
        break;
      case '1':
        return here.starts_with("15") ? make(layout, i, 2, Elem::Hour)
                                      : make(layout, i, 1, Elem::NumMonth);
      case '2':
        return here.starts_with("2006") ? make(layout, i, 4, Elem::LongYear)
                                        : make(layout, i, 1, Elem::Day);
      case '_':
        if (here.starts_with("_2006")) return make(layout, i + 1, 4, Elem::LongYear);
        if (here.starts_with("_2")) return make(layout, i, 2, Elem::UnderDay);
        if (here.starts_with("__2")) return make(layout, i, 3, Elem::YearDay);
        break;
      case '3':
        return make(layout, i, 1, Elem::Hour12);
      case '4':
        return make(layout, i, 1, Elem::Minute);
      case '5':
        return make(layout, i, 1, Elem::Second);
      case 'P':
        if (here.starts_with("PM")) return make(layout, i, 2, Elem::PM);
        break;
      case 'p':
        if (here.starts_with("pm")) return make(layout, i, 2, Elem::LowerPM);
        break;
      case '-':
      case 'Z':
        found = zone_chunk(layout, i);
        break;
      case '.':
      case ',':
        found = fraction(layout, i);
        break;
      default:
        break;
    }
    if (found.elem != Elem::None) return found;
  }
  return {layout, Elem::None, {}, {}, false};
}

// Literal text: a run of spaces in the layout matches a run of spaces in the value.
bool skip_literal(std::string_view& value, std::string_view prefix) {
  auto cut_spaces = [](std::string_view& s) {
    while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
  };
  while (!prefix.empty()) {
    if (prefix[0] == ' ') {
      if (!value.empty() && value[0] != ' ') return false;
      cut_spaces(prefix);
      cut_spaces(value);
      continue;
    }
    if (value.empty() || value[0] != prefix[0]) return false;
    prefix.remove_prefix(1);
    value.remove_prefix(1);
  }
  return true;
}

// One or two digits (exactly two when `fixed`).
bool get_number(std::string_view& value, bool fixed, int& out) {
  if (!is_digit(value, 0)) return false;
  if (!is_digit(value, 1)) {
    if (fixed) return false;
    out = value[0] - '0';
    value.remove_prefix(1);
    return true;
  }
  out = (value[0] - '0') * 10 + (value[1] - '0');
  value.remove_prefix(2);
  return true;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

template <std::size_t N>
bool lookup_name(std::string_view& value, const std::array<std::string_view, N>& names,
                 int& index) {
  for (std::size_t i = 0; i < N; ++i) {
    if (value.size() >= names[i].size() &&
        same_ignoring_case(value.substr(0, names[i].size()), names[i])) {
      index = static_cast<int>(i);
      value.remove_prefix(names[i].size());
      return true;
    }
  }
  return false;
}

constexpr std::array<std::string_view, 12> kLongMonths{
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 12> kShortMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 7> kLongDays{"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                    "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 7> kShortDays{"Sun", "Mon", "Tue", "Wed",
                                                     "Thu", "Fri", "Sat"};

// Fractional seconds: value[0] is '.' or ',', then `digits` digits (at most nine are read).
bool parse_fraction(std::string_view& value, std::size_t digits, std::int64_t& nanos) {
  if (value.size() < digits + 1 || (value[0] != '.' && value[0] != ',')) return false;
  nanos = 0;
  for (std::size_t i = 1; i <= digits; ++i) {
    if (!is_digit(value, i)) return false;
    if (i <= 9) nanos = nanos * 10 + (value[i] - '0');
  }
  for (std::size_t i = digits; i < 9; ++i) nanos *= 10;
  value.remove_prefix(digits + 1);
  return true;
}

// A numeric zone offset in the form of `elem`; offset in seconds east of UTC.
bool parse_offset(std::string_view& value, Elem elem, int& offset) {
  std::size_t length = 0;
  std::array<std::size_t, 3> at{1, 0, 0};  // where the hours, minutes, seconds digits start
  switch (elem) {
    case Elem::ZoneColon:
      length = 6, at = {1, 4, 0};
      if (value.size() >= length && value[3] != ':') return false;
      break;
    case Elem::ZoneColonSeconds:
      length = 9, at = {1, 4, 7};
      if (value.size() >= length && (value[3] != ':' || value[6] != ':')) return false;
      break;
    case Elem::Zone:
      length = 5, at = {1, 3, 0};
      break;
    case Elem::ZoneSeconds:
      length = 7, at = {1, 3, 5};
      break;
    default:  // ZoneShort
      length = 3;
      break;
  }
  if (value.size() < length || (value[0] != '+' && value[0] != '-')) return false;
  int parts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    if (at[i] == 0) continue;
    std::string_view digits = value.substr(at[i], 2);
    if (!get_number(digits, true, parts[i])) return false;
  }
  offset = (parts[0] * 60 + parts[1]) * 60 + parts[2];
  if (value[0] == '-') offset = -offset;
  value.remove_prefix(length);
  return true;
}

// A zone abbreviation (Go's parseTimeZone): its length, 0 when `value` does not start with one.
// GMT+h sets `offset`; every other name is read as UTC.
std::size_t parse_zone_name(std::string_view value, int& offset) {
  offset = 0;
  if (value.size() < 3) return 0;
  if (value.starts_with("ChST") || value.starts_with("MeST")) return 4;
  if (value.starts_with("GMT")) {
    std::string_view tail = value.substr(3);
    if (tail.empty() || (tail[0] != '+' && tail[0] != '-')) return 3;
    std::string_view digits = tail.substr(1);
    int hours = 0;
    if (!get_number(digits, false, hours) || hours > 23) return 3;
    offset = (tail[0] == '-' ? -hours : hours) * 3600;
    return value.size() - digits.size();
  }
  std::size_t upper = 0;
  while (upper < value.size() && upper < 6 && value[upper] >= 'A' && value[upper] <= 'Z') ++upper;
  if (upper == 3) return 3;
  if (upper == 4 && (value[3] == 'T' || value.starts_with("WITA"))) return 4;
  if (upper == 5 && value[4] == 'T') return 5;
  return 0;
}

struct Fields {
  int year = 0;
  bool has_year = false;
  int month = 1;
  int day = 1;
  int hour = 0;
  int minute = 0;
  int second = 0;
  std::int64_t nanos = 0;
  int offset = 0;  // seconds east of UTC
  bool pm = false;
  bool am = false;
};

struct Parser {
  std::string_view layout;
  std::string_view value;
  std::string error;

  std::string head() const {
    return "parsing time \"" + std::string(value) + "\" as \"" + std::string(layout) + "\": ";
  }
  bool cannot_parse(std::string_view rest, std::string_view element) {
    error =
        head() + "cannot parse \"" + std::string(rest) + "\" as \"" + std::string(element) + "\"";
    return false;
  }
  bool out_of_range(std::string_view what) {
    error = "parsing time \"" + std::string(value) + "\": " + std::string(what) + " out of range";
    return false;
  }

  bool element(const Chunk& chunk, std::string_view& rest, std::string_view layout_rest, Fields& f);
  bool run(Fields& f);
};

bool Parser::element(const Chunk& chunk, std::string_view& rest, std::string_view layout_rest,
                     Fields& f) {
  int index = 0;
  switch (chunk.elem) {
    case Elem::LongYear:
      if (rest.size() < 4 || !is_digit(rest, 0) || !is_digit(rest, 1) || !is_digit(rest, 2) ||
          !is_digit(rest, 3))
        return false;
      f.year = std::stoi(std::string(rest.substr(0, 4)));
      f.has_year = true;
      rest.remove_prefix(4);
      return true;
    case Elem::Year:
      if (!get_number(rest, true, f.year)) return false;
      f.year += f.year >= 69 ? 1900 : 2000;
      f.has_year = true;
      return true;
    case Elem::LongMonth:
    case Elem::Month:
      if (!(chunk.elem == Elem::Month ? lookup_name(rest, kShortMonths, index)
                                      : lookup_name(rest, kLongMonths, index)))
        return false;
      f.month = index + 1;
      return true;
    case Elem::NumMonth:
    case Elem::ZeroMonth:
      if (!get_number(rest, chunk.elem == Elem::ZeroMonth, f.month)) return false;
      return (f.month >= 1 && f.month <= 12) || out_of_range("month");
    case Elem::LongWeekDay:
      return lookup_name(rest, kLongDays, index);
    case Elem::WeekDay:
      return lookup_name(rest, kShortDays, index);
    case Elem::Day:
    case Elem::UnderDay:
    case Elem::ZeroDay:
      if (chunk.elem == Elem::UnderDay && !rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
      return get_number(rest, chunk.elem == Elem::ZeroDay, f.day);
    case Elem::Hour:
      if (!get_number(rest, false, f.hour)) return false;
      return f.hour < 24 || out_of_range("hour");
    case Elem::Hour12:
    case Elem::ZeroHour12:
      if (!get_number(rest, chunk.elem == Elem::ZeroHour12, f.hour)) return false;
      return f.hour <= 12 || out_of_range("hour");
    case Elem::Minute:
    case Elem::ZeroMinute:
      if (!get_number(rest, chunk.elem == Elem::ZeroMinute, f.minute)) return false;
      return f.minute < 60 || out_of_range("minute");
    case Elem::Second:
    case Elem::ZeroSecond: {
      if (!get_number(rest, chunk.elem == Elem::ZeroSecond, f.second)) return false;
      if (f.second >= 60) return out_of_range("second");
      // A fraction the layout does not spell is still read (Go does the same).
      const Elem next = next_chunk(layout_rest).elem;
      if (rest.size() >= 2 && (rest[0] == '.' || rest[0] == ',') && is_digit(rest, 1) &&
          next != Elem::Frac0 && next != Elem::Frac9) {
        std::size_t digits = 1;
        while (is_digit(rest, digits + 1)) ++digits;
        return parse_fraction(rest, digits, f.nanos);
      }
      return true;
    }
    case Elem::Frac0:
      return parse_fraction(rest, chunk.token.size() - 1, f.nanos);
    case Elem::Frac9: {
      if (rest.size() < 2 || (rest[0] != '.' && rest[0] != ',') || !is_digit(rest, 1)) return true;
      std::size_t digits = 1;
      while (is_digit(rest, digits + 1)) ++digits;
      return parse_fraction(rest, digits, f.nanos);
    }
    case Elem::PM:
    case Elem::LowerPM: {
      if (rest.size() < 2) return false;
      const bool upper = chunk.elem == Elem::PM;
      const std::string_view marker = rest.substr(0, 2);
      f.pm = marker == (upper ? "PM" : "pm");
      f.am = marker == (upper ? "AM" : "am");
      rest.remove_prefix(2);
      return f.pm || f.am;
    }
    case Elem::ZoneName: {
      if (rest.starts_with("UTC")) {
        rest.remove_prefix(3);
        return true;
      }
      const std::size_t length = parse_zone_name(rest, f.offset);
      rest.remove_prefix(length);
      return length != 0;
    }
    case Elem::ZoneColon:
    case Elem::ZoneColonSeconds:
    case Elem::Zone:
    case Elem::ZoneSeconds:
    case Elem::ZoneShort:
      if (chunk.utc_z && !rest.empty() && rest[0] == 'Z') {
        rest.remove_prefix(1);
        f.offset = 0;
        return true;
      }
      return parse_offset(rest, chunk.elem, f.offset);
    default:
      return false;
  }
}

bool Parser::run(Fields& f) {
  std::string_view remaining_layout = layout;
  std::string_view rest = value;
  for (;;) {
    const Chunk chunk = next_chunk(remaining_layout);
    if (!skip_literal(rest, chunk.prefix)) return cannot_parse(rest, chunk.prefix);
    if (chunk.elem == Elem::None) {
      if (rest.empty()) return true;
      error =
          "parsing time \"" + std::string(value) + "\": extra text: \"" + std::string(rest) + "\"";
      return false;
    }
    if (chunk.elem == Elem::YearDay) {
      error = head() + "layout element \"" + std::string(chunk.token) +
              "\" (day of the year) is not supported";
      return false;
    }
    remaining_layout = chunk.rest;
    const std::string_view before = rest;
    if (!element(chunk, rest, remaining_layout, f)) {
      return error.empty() ? cannot_parse(before, chunk.token) : false;
    }
  }
}

}  // namespace

GoTimeResult parse_go_time(std::string_view layout, std::string_view value,
                           std::optional<int> default_year) {
  Parser parser{layout, value, {}};
  Fields f;
  if (!parser.run(f)) return {std::nullopt, parser.error};
  if (f.pm && f.hour < 12) f.hour += 12;
  if (f.am && f.hour == 12) f.hour = 0;
  if (!f.has_year && default_year) f.year = *default_year;
  using namespace std::chrono;
  const year_month_day date{year(f.year), month(static_cast<unsigned>(f.month)),
                            day(static_cast<unsigned>(f.day))};
  if (f.day < 1 || !date.ok()) {
    parser.out_of_range("day");
    return {std::nullopt, parser.error};
  }
  // The clock counts nanoseconds in 64 bits: years 1678 to 2261.
  if (f.year < 1678 || f.year > 2261) {
    return {std::nullopt, "parsing time \"" + std::string(value) + "\" as \"" +
                              std::string(layout) + "\": year " + std::to_string(f.year) +
                              (f.has_year ? "" : " (the layout names no year)") +
                              " is out of range"};
  }
  const auto local =
      sys_days(date) + hours(f.hour) + minutes(f.minute) + seconds(f.second) + nanoseconds(f.nanos);
  return {time_point_cast<k8s::Clock::duration>(local - seconds(f.offset)), {}};
}

std::string check_go_layout(std::string_view layout) {
  bool any = false;
  for (std::string_view rest = layout;;) {
    const Chunk chunk = next_chunk(rest);
    if (chunk.elem == Elem::None) break;
    if (chunk.elem == Elem::YearDay) {
      return "layout element \"" + std::string(chunk.token) +
             "\" (day of the year) is not supported";
    }
    any = true;
    rest = chunk.rest;
  }
  if (any) return {};
  return "layout \"" + std::string(layout) +
         "\" has no date or time element: write the reference time Mon Jan 2 15:04:05 MST 2006 "
         "the way the log does, e.g. 2006-01-02T15:04:05Z07:00";
}

}  // namespace nvcre::measure
