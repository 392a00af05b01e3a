#pragma once
// Kubernetes timestamps (metav1.Time / MicroTime): RFC 3339 in UTC, "2026-01-02T03:04:05Z" with
// optional fractional seconds. Reconcilers compare them against `now`, which is always an input.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace nvcre::k8s {

using Clock = std::chrono::system_clock;

// nullopt when the text is not an RFC 3339 timestamp (offsets other than Z are accepted).
std::optional<Clock::time_point> parse_rfc3339(std::string_view text);
// Seconds precision, "Z" suffix: the metav1.Time wire form.
std::string format_rfc3339(Clock::time_point time);
// Microseconds precision: the metav1.MicroTime wire form (Lease renewTime, events.k8s.io
// eventTime).
std::string format_rfc3339_micro(Clock::time_point time);
// Go's RFC3339Nano: nanoseconds with trailing zeros (and a bare '.') dropped, "Z" suffix; the form
// kubelet log timestamps and parsed log events are shown in.
std::string format_rfc3339_nano(Clock::time_point time);

}  // namespace nvcre::k8s
