#include "measure/bandwidth.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace nvcre::measure {
namespace {

struct Sum {
  double alg = 0;
  double bus = 0;
  std::int64_t count = 0;
};

std::map<std::int64_t, Sum> sums_of(std::span<const BandwidthRow> rows) {
  std::map<std::int64_t, Sum> sums;
  for (const auto& row : rows) {
    auto& sum = sums[row.sizeBytes];
    sum.alg += row.algBW;
    sum.bus += row.busBW;
    ++sum.count;
  }
  return sums;
}

std::string_view trim_spaces(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n\v\f") - first + 1);
}

template <class Field>
std::optional<double> peak(const std::vector<api::BandwidthResult>& results, Field field) {
  std::optional<double> best;
  for (const auto& result : results) {
    const auto value = parse_float_capture(result.*field);
    if (value && (!best || *value > *best)) best = value;
  }
  return best;
}

}  // namespace

std::optional<std::string> nccl_transport(std::string_view text) {
  static constexpr std::string_view kMarker = "NCCL INFO Using network ";
  const auto at = text.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  const auto name = trim_spaces(text.substr(at + kMarker.size()));
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

BandwidthScan scan_bandwidth(const CompiledProfile& profile, std::span<const LogLine> lines) {
  const CompiledPattern* pattern = profile.bandwidth_result();
  if (pattern == nullptr) {
    throw ProfileError("LogProfile " + profile.name + " has no bandwidthResult pattern");
  }
  BandwidthScan scan;
  std::set<std::string> transports;
  for (const auto& line : lines) {
    if (line.timestamp) scan.last_timestamp = line.timestamp;
    if (auto transport = nccl_transport(line.text)) transports.insert(std::move(*transport));
    const auto captures = pattern->match(line.text);
    if (!captures) continue;
    const auto size = parse_int_capture(captures->at("size"));
    const auto alg = parse_float_capture(captures->at("algBW"));
    const auto bus = parse_float_capture(captures->at("busBW"));
    if (!size || !alg || !bus) continue;
    scan.rows.push_back({*size, *alg, *bus, line.timestamp});
  }
  scan.transports.assign(transports.begin(), transports.end());
  return scan;
}

BandwidthScan scan_bandwidth(const CompiledProfile& profile, std::string_view log_body) {
  const auto lines = split_log_lines(log_body).all_lines();
  return scan_bandwidth(profile, lines);
}

std::string format_gbps(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

std::vector<api::BandwidthResult> merge_running_averages(
    const std::vector<api::BandwidthResult>& existing, std::span<const BandwidthRow> rows) {
  std::map<std::int64_t, api::BandwidthResult> merged;
  for (const auto& result : existing) merged[result.sizeBytes] = result;
  for (const auto& [size, sum] : sums_of(rows)) {
    auto found = merged.find(size);
    if (found == merged.end()) {
      merged[size] = {size, format_gbps(sum.alg / static_cast<double>(sum.count)),
                      format_gbps(sum.bus / static_cast<double>(sum.count)), sum.count};
      continue;
    }
    auto& result = found->second;
    // A stored value that does not read as a number counts as 0, as a fresh sample would not.
    const double old_alg = parse_float_capture(result.algBW).value_or(0);
    const double old_bus = parse_float_capture(result.busBW).value_or(0);
    const std::int64_t total = result.samples + sum.count;
    const auto weight = static_cast<double>(result.samples);
    result.algBW = format_gbps((old_alg * weight + sum.alg) / static_cast<double>(total));
    result.busBW = format_gbps((old_bus * weight + sum.bus) / static_cast<double>(total));
    result.samples = total;
  }
  std::vector<api::BandwidthResult> out;
  out.reserve(merged.size());
  for (auto& [size, result] : merged) out.push_back(std::move(result));
  return out;
}

std::vector<api::BandwidthResult> average_rows(std::span<const BandwidthRow> rows) {
  return merge_running_averages({}, rows);
}

std::vector<std::string> merge_transports(const std::vector<std::string>& existing,
                                          const std::vector<std::string>& observed) {
  std::set<std::string> all;
  for (const auto* list : {&existing, &observed}) {
    for (const auto& name : *list) {
      const auto trimmed = trim_spaces(name);
      if (!trimmed.empty()) all.emplace(trimmed);
    }
  }
  return {all.begin(), all.end()};
}

std::optional<double> peak_bus_bandwidth(const std::vector<api::BandwidthResult>& results) {
  return peak(results, &api::BandwidthResult::busBW);
}

std::optional<double> peak_alg_bandwidth(const std::vector<api::BandwidthResult>& results) {
  return peak(results, &api::BandwidthResult::algBW);
}

}  // namespace nvcre::measure
