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

// Job name -> the group it ran.
std::map<std::string, const api::GroupStatus*> groups_by_job(
    const api::OrchestrationStatus& orchestration);

// Every group's measured curve (each message size once, in size order), in group order.
std::vector<BandwidthCurve> bandwidth_curves(
    const api::OrchestrationStatus& orchestration,
    const std::vector<const api::BandwidthMeasurement*>& measurements);

// The threshold `expression` and the lowest value where its verdict flips, between 0 and 10^6 GB/s
// (searched with the controller's judge, so any expression it accepts is drawn the way it is
// judged); no boundary when the verdict never flips or the expression is empty or invalid.
BandwidthThreshold threshold_of(const std::string& expression);

// Every node the categories name, with its verdict over all of them (build_nodes.cpp).
class NodeVerdicts {
 public:
  // `label` is "<domain>/<variant>"; `results` the Workflow's nodeResults (may be null; a
  // diagnose run records none), `failed` / `succeeded` its node-result ConfigMaps' entries.
  void add_category(const std::string& label, const api::OrchestrationStatus* orchestration,
                    const std::map<std::string, api::NodeResult>* results,
                    const std::vector<api::FailedNode>& failed,
                    const std::vector<std::string>& succeeded);
  void exclude(const std::vector<std::string>& nodes, const std::string& reason);
  std::vector<NodeVerdict> rows() const;

 private:
  std::map<std::string, NodeVerdict> nodes_;
};

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
