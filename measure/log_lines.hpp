#pragma once
// A pod log read with kubelet timestamps, split into lines. The kubelet prefixes every line with
// its RFC 3339 time (nanoseconds, "Z" or the node's offset such as "-07:00") and one space; a log
// saved by a user has no prefix, and its lines are kept whole without a time.
#include "k8s/rfc3339.hpp"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace nvcre::measure {

// The longest line kept: a line past it (a serialized tensor, a progress bar without newlines) is
// no metric row, so its text is dropped while its timestamp still counts for paging.
inline constexpr std::size_t kMaxLogLineBytes = 1024 * 1024;

struct LogLine {
  std::optional<k8s::Clock::time_point> timestamp;  // the kubelet prefix; nullopt when absent
  std::string_view text;  // after the prefix (the whole line without one); views the log body
  std::string_view raw;   // the whole line, prefix included (training patterns see this)
  bool overlong = false;  // longer than kMaxLogLineBytes: text and raw are empty
};

struct SplitLog {
  std::vector<LogLine> lines;         // every line ended by '\n', in order
  std::optional<LogLine> final_line;  // trailing bytes without '\n' (a read cut by limitBytes)
  std::size_t overlong_lines = 0;     // lines (final one included) whose text was dropped

  // The complete lines and, for a read that was not cut, the final unterminated one too (the
  // container's last write had no newline).
  std::vector<LogLine> all_lines() const;
};

// The kubelet timestamp at the start of `line` (up to its first space), nullopt when there is none.
std::optional<k8s::Clock::time_point> kubelet_timestamp(std::string_view line);

// One line (without its '\n'; a trailing '\r' is dropped).
LogLine parse_log_line(std::string_view line);

// Splits a log body; the returned views point into `body`, which must outlive them.
SplitLog split_log_lines(std::string_view body);

}  // namespace nvcre::measure
