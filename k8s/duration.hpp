#pragma once
// Go time.Duration text: metav1.Duration fields ("90s", "1h30m") and the plain-string category
// durations (`timeoutPerJob`) whose CRD pattern is narrower.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace nvcre::k8s {

// time.ParseDuration: [-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+ or a lone "0" (signed).
// nullopt on bad syntax, a missing or unknown unit, or a total outside int64 nanoseconds.
// Fractions are converted exactly as Go does (through float64), so results match to the nano.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

// Duration.String(): "1h30m0s", "1m30s", "500ms", "1.5µs", "0s", "-2s".
std::string format_go_duration(std::chrono::nanoseconds duration);

// The CRD pattern ^([0-9]+(h|m|s|ms))+$ of CategoryOptions.timeoutPerJob/measurementTimeout.
bool matches_category_duration_pattern(std::string_view text);

}  // namespace nvcre::k8s
