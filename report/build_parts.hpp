#pragma once
// The per-section steps of build_certification_report (build.cpp), over typed objects; split out
// so each stays small and testable on its own.
#include "api/job.hpp"
#include "api/measurement.hpp"
#include "api/workflow.hpp"
#include "report/model.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::report::detail {

// Whether a measurement's numbers are final: its Complete condition is True with JobSucceeded.
// Otherwise the reason it is not (Complete's reason, or the Measuring reason while it runs).
struct Finality {
  bool provisional = false;
  std::string reason;
};
Finality finality_of(const std::vector<api::Condition>& conditions);

// The result with the largest message size (not the last one: sizes are recorded in the order
// they were first seen), or nullptr.
const api::BandwidthResult* peak_result(const std::vector<api::BandwidthResult>& results);

// "<domain> (<n> nodes)", "group-0 (a, b)" for up to four nodes, else "group-0 (<n> nodes)".
std::string group_label(const api::GroupStatus& group);

// Whether the busBandwidthGBps threshold `expression` is a minimum that `peak_gbps` misses: it is
// false at the peak but true for some larger value. An upper bound ("value <= 200"), a bare number
// (not an expression: the controller rejects it too) or an expression that does not compile is
// never a missed minimum.
bool misses_minimum(const std::string& expression, double peak_gbps);

std::vector<GroupBandwidthRow> group_bandwidth_rows(
    const api::OrchestrationStatus& orchestration,
    const std::vector<const api::BandwidthMeasurement*>& measurements,
    const std::string& threshold_expression);

std::optional<BandwidthRow> aggregate_bandwidth_row(
    const std::vector<const api::BandwidthMeasurement*>& measurements);

std::vector<DomainMetrics> domain_metrics(
    const api::OrchestrationStatus* orchestration,
    const std::vector<const api::GoodputMeasurement*>& measurements);

std::vector<CliqueRow> clique_rows(const api::OrchestrationStatus& orchestration,
                                   const std::vector<api::FailedNode>& failed_nodes);

}  // namespace nvcre::report::detail
