#pragma once
// Times written in a Go layout (the reference time "Mon Jan 2 15:04:05 MST 2006" spelled the way
// the log writes it), as LogProfile.spec.timestamp.layout gives them. Supported elements: years
// 2006/06, months January/Jan/01/1, days 02/_2/2, weekdays Monday/Mon (read, not checked), hours
// 15/03/3 with PM/pm, minutes 04/4, seconds 05/5, fractions .000/.999 (or ,000/,999; a layout
// without one still accepts a fraction after the seconds), zones Z07:00/Z0700/Z07 and
// -07:00/-0700/-07 (with :00 seconds forms) and MST (an abbreviation, read as UTC unless it
// spells an offset such as GMT+3). Anything else is literal text; a run of spaces matches a run.
#include "k8s/rfc3339.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace nvcre::measure {

struct GoTimeResult {
  std::optional<k8s::Clock::time_point> time;
  std::string error;  // set when time is not: `parsing time "v" as "layout": cannot parse ...`
};

// Parses `value` with `layout`. A layout without a year takes `default_year` (a syslog-style
// "Jan _2 15:04:05" names none); without one such a time is an error, as year 0 is out of range.
GoTimeResult parse_go_time(std::string_view layout, std::string_view value,
                           std::optional<int> default_year = std::nullopt);

// Why `layout` cannot be used (no date or time element, or an unsupported one such as the day of
// the year "002"); empty when it can.
std::string check_go_layout(std::string_view layout);

}  // namespace nvcre::measure
