#include "measure/log_lines.hpp"

namespace nvcre::measure {

std::vector<LogLine> SplitLog::all_lines() const {
  std::vector<LogLine> out = lines;
  if (final_line) out.push_back(*final_line);
  return out;
}

std::optional<k8s::Clock::time_point> kubelet_timestamp(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  return k8s::parse_rfc3339(line.substr(0, space));
}

LogLine parse_log_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  LogLine out;
  out.timestamp = kubelet_timestamp(line);
  out.text = out.timestamp ? line.substr(line.find(' ') + 1) : line;
  out.raw = line;
  if (line.size() > kMaxLogLineBytes) {
    out.overlong = true;
    out.text = {};
    out.raw = {};
  }
  return out;
}

SplitLog split_log_lines(std::string_view body) {
  SplitLog out;
  std::size_t start = 0;
  while (start < body.size()) {
    const auto end = body.find('\n', start);
    if (end == std::string_view::npos) {
      out.final_line = parse_log_line(body.substr(start));
      if (out.final_line->overlong) ++out.overlong_lines;
      break;
    }
    out.lines.push_back(parse_log_line(body.substr(start, end - start)));
    if (out.lines.back().overlong) ++out.overlong_lines;
    start = end + 1;
  }
  return out;
}

}  // namespace nvcre::measure
