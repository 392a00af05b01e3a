#pragma once
// GET pods/<name>/log as kube-apiserver and the kubelet answer it, without I/O: the PodLogOptions
// query (container, timestamps, sinceTime, sinceSeconds, tailLines, limitBytes, previous) parsed
// and validated with the API server's errors, the container chosen as the API server chooses it,
// and the stored lines rendered as the kubelet writes them:
//   - tailLines first (the last N lines), then the since filter (lines at or after sinceTime,
//     which the API server passes on to the kubelet with second precision, or after
//     now - sinceSeconds);
//   - timestamps=true prefixes every line with its time in RFC 3339 with nine fractional digits,
//     UTC, and one space ("2026-12-03T12:00:01.123456789Z <line>");
//   - limitBytes cuts the output at that many bytes, mid-line if it falls there.
#include "sim/pod_logs.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

struct PodLogOptions {
  std::string container;  // empty: the pod's only container
  bool timestamps = false;
  bool previous = false;
  std::optional<std::chrono::system_clock::time_point> since_time;
  std::optional<std::int64_t> since_seconds;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> limit_bytes;
};

// The options of a log request for pod `pod_name`. Throws ApiError: 400 BadRequest for a value
// that does not parse (as the API server's parameter decoding does), 422 Invalid (kind
// PodLogOptions) for the API server's validation: tailLines >= 0, limitBytes > 0,
// sinceSeconds > 0, at most one of sinceTime and sinceSeconds.
PodLogOptions parse_pod_log_options(const std::map<std::string, std::string>& query,
                                    const std::string& pod_name);

// The container whose log is read: `requested` when the pod has it (containers, init containers
// or ephemeral containers), else the pod's only container. Throws ApiError 400 as the API server
// does when the name is not one of the pod's or the pod has several and none is named.
std::string resolve_log_container(const boost::json::value& pod, const std::string& requested);

// "2026-12-03T12:00:01.123456789Z": the kubelet's timestamp (nine fractional digits, UTC).
std::string kubelet_timestamp(std::chrono::system_clock::time_point time);

// The response body for `lines` under `options` at time `now` (sinceSeconds counts back from it).
std::string render_pod_log(const std::vector<LogLine>& lines, const PodLogOptions& options,
                           std::chrono::system_clock::time_point now);

// A log text to replay (kube-sim's PUT /sim/logs): one LogLine per line; a line that starts with
// an RFC 3339 timestamp and a space (as `kubectl logs --timestamps` prints it) keeps that time and
// loses the prefix, any other line is stamped `now`. A trailing '\r' is dropped.
std::vector<LogLine> parse_replayed_log(std::string_view text,
                                        std::chrono::system_clock::time_point now);

}  // namespace nvcre::sim
