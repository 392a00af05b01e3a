// The bandwidth, training-metric and clique sections of a category report.
#include "api/conditions.hpp"
#include "api/measurement.hpp"
#include "measure/goodput.hpp"
#include "measure/threshold_check.hpp"
#include "report/build.hpp"
#include "report/build_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace nvcre::report::detail {
namespace {

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
  return out;
}

bool passes(const std::string& expression, double value) {
  const std::string key = "busBandwidthGBps";
  const auto verdict = measure::judge_thresholds({{key, expression}}, {{key, value}}, {}, {});
  return verdict.outcome == measure::ThresholdVerdict::Outcome::Met;
}

std::string average(const std::vector<double>& values, const char* pattern) {
  if (values.empty()) return {};
  double sum = 0;
  for (double value : values) sum += value;
  const double mean = sum / static_cast<double>(values.size());
  if (mean == 0) return {};
  if (std::string_view(pattern) == "percent") {
    return format("%.2f", mean) + " (" + format("%.0f", mean * 100) + "%)";
  }
  return format(pattern, mean);
}

}  // namespace

std::map<std::string, const api::GroupStatus*> groups_by_job(
    const api::OrchestrationStatus& orchestration) {
  std::map<std::string, const api::GroupStatus*> out;
  for (const auto& group : orchestration.groups)
    if (group.jobRef) out[group.jobRef->name] = &group;
  return out;
}

BandwidthThreshold threshold_of(const std::string& expression) {
  BandwidthThreshold out;
  out.expression = expression;
  if (expression.empty()) return out;
  // The first value (10% steps from 1 to 10^6 GB/s) judged unlike 0, so a range such as
  // `value >= 300 && value < 5000` is found as well as a plain bound.
  const bool passes_zero = passes(expression, 0);
  double high = 0;
  for (double v = 1; v <= 1e6 && high == 0; v *= 1.1)
    if (passes(expression, v) != passes_zero) high = v;
  if (high == 0) return out;
  out.minimum = !passes_zero;
  double low = 0;
  for (int i = 0; i < 60; ++i) {
    const double middle = (low + high) / 2;
    (passes(expression, middle) == passes_zero ? low : high) = middle;
  }
  // To the hundredth: `value >= 850` is drawn at 850, not at 849.99999999.
  out.boundary_gbps = std::round(high * 100) / 100;
  return out;
}

Finality finality_of(const std::vector<api::Condition>& conditions) {
  const auto* complete = api::find_condition(conditions, api::kConditionComplete);
  if (complete != nullptr && complete->status == "True") {
    if (complete->reason == api::measurement_reason::kJobSucceeded) return {};
    return {true, complete->reason.empty() ? "incomplete" : complete->reason};
  }
  const auto* measuring = api::find_condition(conditions, api::kConditionMeasuring);
  if (measuring != nullptr && !measuring->reason.empty()) return {true, measuring->reason};
  return {true, "measuring"};
}

const api::BandwidthResult* peak_result(const std::vector<api::BandwidthResult>& results) {
  const api::BandwidthResult* peak = nullptr;
  for (const auto& result : results)
    if (peak == nullptr || result.sizeBytes > peak->sizeBytes) peak = &result;
  return peak;
}

std::string group_label(const api::GroupStatus& group) {
  const auto count = std::to_string(group.nodes.size());
  if (!group.domains.empty()) return group.domains.front() + " (" + count + " nodes)";
  if (group.nodes.size() <= 4) return group.name + " (" + join(group.nodes, ", ") + ")";
  return group.name + " (" + count + " nodes)";
}

bool misses_minimum(const std::string& expression, double peak_gbps) {
  if (expression.empty() || passes(expression, peak_gbps)) return false;
  // Larger values up to well beyond any fabric: a minimum is met by one of them, an upper bound
  // by none.
  for (double factor : {1.5, 2.0, 4.0, 10.0, 100.0, 1e4})
    if (passes(expression, std::max(peak_gbps, 1.0) * factor)) return true;
  return false;
}

std::vector<GroupBandwidthRow> group_bandwidth_rows(
    const api::OrchestrationStatus& orchestration,
    const std::vector<const api::BandwidthMeasurement*>& measurements,
    const std::string& threshold_expression) {
  const auto by_job = groups_by_job(orchestration);
  std::vector<GroupBandwidthRow> rows;
  std::set<std::string> listed;
  for (const auto* measurement : measurements) {
    auto it = by_job.find(measurement->spec.jobRef.name);
    if (it == by_job.end() || !measurement->status) continue;
    const auto& status = *measurement->status;
    const auto* peak = peak_result(status.results);
    if (peak == nullptr && status.transport.empty()) continue;
    const api::GroupStatus& group = *it->second;
    GroupBandwidthRow row;
    row.group = group.name;
    row.label = group_label(group);
    row.nodes = group.nodes;
    row.transport = status.transport;
    row.failed = group.phase == api::group_phase::kFailed;
    if (peak != nullptr) {
      row.bus_bw = peak->busBW + " GB/s";
      const Finality finality = finality_of(status.conditions);
      row.provisional = finality.provisional;
      row.provisional_reason = finality.reason;
      // Provisional numbers are not judged by the controller either.
      if (!row.provisional)
        row.below_min =
            misses_minimum(threshold_expression, measure::parse_status_number(peak->busBW));
    }
    listed.insert(group.name);
    rows.push_back(std::move(row));
  }
  // A failed group without bandwidth data keeps its row, so it cannot vanish from the table.
  for (const auto& group : orchestration.groups) {
    if (group.phase != api::group_phase::kFailed || listed.count(group.name)) continue;
    GroupBandwidthRow row;
    row.group = group.name;
    row.label = group.domains.empty()
                    ? group.name + " (" + std::to_string(group.nodes.size()) + " nodes)"
                    : group_label(group);
    row.nodes = group.nodes;
    row.failed = true;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<BandwidthRow> aggregate_bandwidth_row(
    const std::vector<const api::BandwidthMeasurement*>& measurements) {
  const api::BandwidthResult* chosen = nullptr;
  const api::BandwidthMeasurement* owner = nullptr;
  for (const auto* measurement : measurements) {
    if (!measurement->status) continue;
    const auto* peak = peak_result(measurement->status->results);
    if (peak == nullptr) continue;
    const bool larger = chosen == nullptr || peak->sizeBytes > chosen->sizeBytes;
    const bool slower_at_same_size =
        chosen != nullptr && peak->sizeBytes == chosen->sizeBytes &&
        measure::parse_status_number(peak->busBW) < measure::parse_status_number(chosen->busBW);
    if (larger || slower_at_same_size) {
      chosen = peak;
      owner = measurement;
    }
  }
  if (chosen == nullptr) return std::nullopt;
  BandwidthRow row;
  row.size = human_size(chosen->sizeBytes);
  row.alg_bw = chosen->algBW + " GB/s";
  row.bus_bw = chosen->busBW + " GB/s";
  row.samples = chosen->samples;
  const Finality finality = finality_of(owner->status->conditions);
  row.provisional = finality.provisional;
  row.provisional_reason = finality.reason;
  return row;
}

std::vector<DomainMetrics> domain_metrics(
    const api::OrchestrationStatus* orchestration,
    const std::vector<const api::GoodputMeasurement*>& measurements) {
  struct Sums {
    std::int64_t node_count = 0;
    std::vector<double> goodput, tflops, step_time;
  };
  std::map<std::string, const api::GroupStatus*> by_job;
  if (orchestration != nullptr) by_job = groups_by_job(*orchestration);
  std::map<std::string, Sums> domains;  // ordered: stable output
  for (const auto* measurement : measurements) {
    auto it = by_job.find(measurement->spec.jobRef.name);
    const api::GroupStatus* group = it == by_job.end() ? nullptr : it->second;
    const std::string name = group == nullptr ? std::string() : join(group->domains, ", ");
    auto [entry, added] = domains.try_emplace(name);
    if (added && group != nullptr)
      entry->second.node_count = static_cast<std::int64_t>(group->nodes.size());
    if (!measurement->status) continue;
    const auto& status = *measurement->status;
    const auto add = [](std::vector<double>& into, const std::string& text) {
      if (double value = measure::parse_status_number(text); value > 0) into.push_back(value);
    };
    add(entry->second.goodput, status.result);
    add(entry->second.tflops, status.avgTFLOPSPerGPU);
    add(entry->second.step_time, status.avgStepTimeSec);
  }
  std::vector<DomainMetrics> out;
  for (const auto& [name, sums] : domains) {
    out.push_back({name, sums.node_count, average(sums.goodput, "percent"),
                   average(sums.tflops, "%.1f"), average(sums.step_time, "%.2fs")});
  }
  return out;
}

std::vector<CliqueRow> clique_rows(const api::OrchestrationStatus& orchestration,
                                   const std::vector<api::FailedNode>& failed_nodes) {
  std::set<std::string> failed;
  for (const auto& node : failed_nodes) failed.insert(node.name);
  std::set<std::string> failed_domains;
  struct Count {
    std::int64_t total = 0, failed = 0;
  };
  std::map<std::string, Count> cliques;
  for (const auto& group : orchestration.groups) {
    if (group.phase == api::group_phase::kFailed)
      failed_domains.insert(group.domains.begin(), group.domains.end());
    if (group.domains.empty()) continue;
    // A group spanning several domains records each one's share at partition time; failures
    // count against its first domain (the exact one is not recorded).
    const bool shares = group.domains.size() > 1 && !group.domainNodeCounts.empty();
    if (shares)
      for (const auto& [domain, count] : group.domainNodeCounts) cliques[domain].total += count;
    Count& first = cliques[group.domains.front()];
    if (!shares) first.total += static_cast<std::int64_t>(group.nodes.size());
    for (const auto& node : group.nodes) first.failed += failed.count(node) ? 1 : 0;
  }
  std::vector<CliqueRow> rows;
  for (const auto& [name, count] : cliques) {
    rows.push_back({name, count.total, count.total - count.failed,
                    count.failed == 0 && failed_domains.count(name) == 0});
  }
  return rows;
}

}  // namespace nvcre::report::detail
