#include "measure/log_paging.hpp"

#include "measure/log_lines.hpp"

#include <algorithm>

namespace nvcre::measure {

FullLogReader::FullLogReader(std::int64_t page_bytes, int max_pages)
    : page_bytes_(page_bytes > 0 ? page_bytes : kDefaultLogPageBytes),
      max_pages_(max_pages > 0 ? max_pages : kDefaultMaxLogPages),
      limit_(page_bytes_) {}

void FullLogReader::fail(const std::string& why) {
  state_ = State::Failed;
  error_ = std::string(kLogUnpageable) + ": " + why;
  text_.clear();
}

void FullLogReader::feed(std::string_view body) {
  if (state_ != State::NeedPage) return;
  ++pages_;
  const bool truncated = static_cast<std::int64_t>(body.size()) >= limit_;
  const SplitLog split = split_log_lines(body);
  // A read that ended on its own keeps a last line without '\n'; a cut one drops it.
  std::vector<LogLine> lines = truncated ? split.lines : split.all_lines();
  if (since_) {
    const auto repeated = static_cast<std::size_t>(
        std::count_if(seen_.begin(), seen_.end(), [&](auto t) { return t >= *since_; }));
    lines.erase(lines.begin(),
                lines.begin() + static_cast<std::ptrdiff_t>(std::min(repeated, lines.size())));
  }
  std::optional<k8s::Clock::time_point> last;
  for (const auto& line : lines) {
    if (line.timestamp) {
      seen_.push_back(*line.timestamp);
      last = line.timestamp;
    } else if (truncated) {
      return fail("line without a timestamp in a truncated page");
    }
    if (line.overlong) {
      ++overlong_;
      continue;
    }
    text_.append(line.raw);
    text_ += '\n';
  }
  if (!truncated) {
    state_ = State::Done;
    return;
  }
  if (lines.empty()) {
    // One second of output fills the whole page: only a larger page can get past it.
    if (limit_ >= page_bytes_ * kMaxLogPageGrowth) {
      return fail("more than " + std::to_string(limit_) + " bytes logged within one second");
    }
    limit_ *= 2;
  } else if (last) {
    const auto second = std::chrono::floor<std::chrono::seconds>(*last);
    if (!since_ || second > *since_) {
      since_ = std::chrono::time_point_cast<k8s::Clock::duration>(second);
      std::erase_if(seen_, [&](auto t) { return t < *since_; });
    }
  }
  if (pages_ >= max_pages_) fail("more than " + std::to_string(max_pages_) + " pages");
}

k8s::Clock::time_point since_time_for_sample(std::optional<k8s::Clock::time_point> last_seen,
                                             std::optional<k8s::Clock::time_point> pod_start,
                                             k8s::Clock::time_point now) {
  const auto floor = now - std::chrono::duration_cast<k8s::Clock::duration>(kMaxLogLookback);
  std::optional<k8s::Clock::time_point> since = pod_start;
  if (last_seen) since = *last_seen - std::chrono::seconds(1);
  return since ? std::max(*since, floor) : floor;
}

}  // namespace nvcre::measure
