#pragma once
// NCCL perf-test output (nccl-tests' table, one row per message size) read with a LogProfile's
// bandwidthResult pattern into per-size bandwidth rows, and the rows folded into the
// BandwidthMeasurement's status: running averages while the Job runs, exact averages of the whole
// log at the end.
#include "api/measurement.hpp"
#include "measure/log_lines.hpp"
#include "measure/log_profile.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::measure {

struct BandwidthRow {
  std::int64_t sizeBytes = 0;
  double algBW = 0;                                 // GB/s
  double busBW = 0;                                 // GB/s
  std::optional<k8s::Clock::time_point> timestamp;  // the line's kubelet time
};

struct BandwidthScan {
  std::vector<BandwidthRow> rows;       // in log order
  std::vector<std::string> transports;  // NCCL "Using network <name>" names, sorted, unique
  std::optional<k8s::Clock::time_point> last_timestamp;  // of any line
};

// Rows are matched against each line's text after the kubelet prefix; a match whose size, algBW or
// busBW is not a number is skipped. Throws ProfileError when the profile has no bandwidthResult.
BandwidthScan scan_bandwidth(const CompiledProfile& profile, std::span<const LogLine> lines);
// A whole log body (its final line too, with or without '\n').
BandwidthScan scan_bandwidth(const CompiledProfile& profile, std::string_view log_body);

// The NCCL network a line announces ("... NCCL INFO Using network IB" -> "IB"), nullopt otherwise.
std::optional<std::string> nccl_transport(std::string_view text);

// Two decimals, as the status stores GB/s.
std::string format_gbps(double value);

// Running averages: each size already in `existing` is averaged with the new rows weighted by its
// sample count, new sizes are added; sorted by size.
std::vector<api::BandwidthResult> merge_running_averages(
    const std::vector<api::BandwidthResult>& existing, std::span<const BandwidthRow> rows);
// The exact per-size averages of the rows of a whole log (the final read replaces the results).
std::vector<api::BandwidthResult> average_rows(std::span<const BandwidthRow> rows);

// The union of two transport lists, trimmed, sorted, without blanks or repeats.
std::vector<std::string> merge_transports(const std::vector<std::string>& existing,
                                          const std::vector<std::string>& observed);

// The highest bus / algorithm bandwidth over the sizes (threshold keys busBandwidthGBps and
// algBandwidthGBps); nullopt when no result holds a number.
std::optional<double> peak_bus_bandwidth(const std::vector<api::BandwidthResult>& results);
std::optional<double> peak_alg_bandwidth(const std::vector<api::BandwidthResult>& results);

}  // namespace nvcre::measure
