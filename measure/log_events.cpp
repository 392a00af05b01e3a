#include "measure/log_events.hpp"

#include "measure/go_time.hpp"

#include <chrono>

namespace nvcre::measure {

void resolve_event_time(const CompiledProfile& profile, const LogLine& line, LogEvent& event) {
  event.timestamp = line.timestamp;
  const auto captured = event.captures.find("timestamp");
  if (captured == event.captures.end() || captured->second.empty()) return;
  std::optional<int> kubelet_year;
  if (line.timestamp) {
    const std::chrono::year_month_day date{std::chrono::floor<std::chrono::days>(*line.timestamp)};
    kubelet_year = static_cast<int>(date.year());
  }
  auto parsed = parse_go_time(profile.timestamp_layout, captured->second, kubelet_year);
  if (parsed.time) {
    event.timestamp = parsed.time;
  } else {
    event.timestamp_error = std::move(parsed.error);
  }
}

std::vector<LogEvent> scan_events(const CompiledProfile& profile, std::span<const LogLine> lines) {
  static constexpr std::string_view kExclusive[] = {
      "trainingStep", "checkpointDone", "checkpointSave", "checkpointRestore", "checkpointLoaded"};
  const CompiledPattern* start = profile.pattern("applicationStart");
  const CompiledPattern* warmup = profile.pattern("warmupStep");
  std::vector<LogEvent> events;
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const LogLine& line = lines[index];
    auto record = [&](const CompiledPattern& pattern, Captures captures) -> LogEvent& {
      LogEvent event{index, pattern.name(), std::nullopt, {}, std::move(captures), false};
      resolve_event_time(profile, line, event);
      return events.emplace_back(std::move(event));
    };
    if (start != nullptr) {
      if (auto captures = start->match(line.raw)) record(*start, std::move(*captures));
    }
    for (const auto name : kExclusive) {
      const CompiledPattern* pattern = profile.pattern(name);
      if (pattern == nullptr) continue;
      auto captures = pattern->match(line.raw);
      if (!captures) continue;
      LogEvent& event = record(*pattern, std::move(*captures));
      event.warmup = name == "trainingStep" && warmup != nullptr && warmup->matches(line.raw);
      break;
    }
  }
  return events;
}

}  // namespace nvcre::measure
