#pragma once
// The events a LogProfile's training patterns find in log lines, one per line and pattern in the
// order the goodput parser reads them: applicationStart (a broad pattern, so it never hides the
// line from the others), then the first of trainingStep, checkpointDone, checkpointSave,
// checkpointRestore, checkpointLoaded. warmupStep only marks a trainingStep line. Patterns see the
// whole line, kubelet prefix included, as in the cluster.
#include "measure/log_lines.hpp"
#include "measure/log_profile.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nvcre::measure {

struct LogEvent {
  std::size_t line = 0;  // index into the scanned lines
  std::string pattern;   // "trainingStep", ...
  // The captured timestamp read with the profile's layout, else the kubelet time.
  std::optional<k8s::Clock::time_point> timestamp;
  std::string timestamp_error;  // why a captured timestamp did not parse (the kubelet time is used)
  Captures captures;
  bool warmup = false;  // a trainingStep line the warmupStep pattern also matches
};

std::vector<LogEvent> scan_events(const CompiledProfile& profile, std::span<const LogLine> lines);

// An event's timestamp: the `timestamp` capture in the profile's layout (a layout without a year
// takes the kubelet time's year), else the kubelet time.
void resolve_event_time(const CompiledProfile& profile, const LogLine& line, LogEvent& event);

}  // namespace nvcre::measure
