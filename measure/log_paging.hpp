#pragma once
// Reading a pod log in full, and where an incremental read starts.
//
// A single log request is capped (limitBytes) and keeps the head of the log, so a log larger than
// one page is read in pages. Each page after the first resumes at the second of the last complete
// line (sinceTime is second-precise on the wire), so the kubelet repeats the lines already read
// from that second: they are exactly the first ones of the new page and are skipped by count. A
// page cut mid-line drops the partial line so it is read whole next time. When one second of
// output fills a whole page the page doubles, up to 4x, then the read fails; so does a log past
// 64 pages, and a truncated page with a line that carries no timestamp to resume from. Built for
// logs no longer written to (a finished workload); a log that rotates between pages can lose or
// repeat lines.
//
// FullLogReader is the state machine, no I/O: ask next_request(), make it, feed() the body,
// repeat while state() is NeedPage.
#include "k8s/rfc3339.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::measure {

inline constexpr std::int64_t kDefaultLogPageBytes = 8 * 1024 * 1024;
inline constexpr int kDefaultMaxLogPages = 64;
inline constexpr int kMaxLogPageGrowth = 4;
// How far back an incremental read may start.
inline constexpr std::chrono::minutes kMaxLogLookback{30};

// Every message of a failed full read starts with this: such a read fails the same way again,
// so callers do not retry it.
inline constexpr std::string_view kLogUnpageable = "log cannot be read in full";

struct LogPageRequest {
  std::optional<k8s::Clock::time_point> since_time;  // whole seconds; none on the first page
  std::int64_t limit_bytes = kDefaultLogPageBytes;
};

class FullLogReader {
 public:
  enum class State { NeedPage, Done, Failed };

  explicit FullLogReader(std::int64_t page_bytes = kDefaultLogPageBytes,
                         int max_pages = kDefaultMaxLogPages);

  State state() const { return state_; }
  // The read to make next; meaningful while state() is NeedPage.
  LogPageRequest next_request() const { return {since_, limit_}; }
  // One response body to next_request(). A body of limit_bytes or more was cut by the limit.
  void feed(std::string_view body);

  // Done: every complete line of the log once, in order, each ended by '\n' (kubelet prefixes
  // kept; a line longer than kMaxLogLineBytes is left out and counted).
  const std::string& text() const { return text_; }
  std::size_t overlong_lines() const { return overlong_; }
  // Failed: `log cannot be read in full: <why>`.
  const std::string& error() const { return error_; }
  int pages_read() const { return pages_; }

 private:
  void fail(const std::string& why);

  std::int64_t page_bytes_;
  int max_pages_;
  State state_ = State::NeedPage;
  std::optional<k8s::Clock::time_point> since_;
  std::int64_t limit_;
  // Timestamps of the kept lines at or after since_: the lines the next page repeats.
  std::vector<k8s::Clock::time_point> seen_;
  std::string text_;
  std::string error_;
  std::size_t overlong_ = 0;
  int pages_ = 0;
};

// Where an incremental read starts: 1 s before the last line already seen, else the pod's start;
// never earlier than now - 30 min (and now - 30 min when neither is known).
k8s::Clock::time_point since_time_for_sample(std::optional<k8s::Clock::time_point> last_seen,
                                             std::optional<k8s::Clock::time_point> pod_start,
                                             k8s::Clock::time_point now);

}  // namespace nvcre::measure
