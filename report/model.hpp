#pragma once
// The certification report: what `nvcrectl certification report` prints, writes as JSON
// (--results-file) and as JUnit (--junit-file). Plain data; build.hpp fills it from the objects,
// text.hpp / junit.hpp render it. JSON field names are NVCRE's, so pipelines reading its results
// files read ours.
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::report {

// report.result
inline constexpr std::string_view kResultRunning = "RUNNING";
inline constexpr std::string_view kResultPassed = "PASSED";
inline constexpr std::string_view kResultFailed = "FAILED";
// Passed, but some targeted nodes were never tested (mixed fleet, leftover cordon): a warning
// that keeps exit status 0.
inline constexpr std::string_view kResultIncomplete = "INCOMPLETE";

struct NodeResultRow {
  std::string name;
  std::string group;
  std::string rack;
  std::string status;  // Passed | Failed
};

struct IterationRow {
  std::int64_t number = 0;
  std::string status;    // Succeeded | Failed | Running
  std::string duration;  // "5m 30s"
};

// Averaged training metrics of one topology domain ("" when the Workflow has no topology).
struct DomainMetrics {
  std::string name;
  std::int64_t node_count = 0;
  std::string goodput;    // "0.93 (93%)"
  std::string tflops;     // "412.5"
  std::string step_time;  // "1.25s"
};

// The category's Bandwidth row: the largest message size, and at that size the lowest bus
// bandwidth over the category's measurements, so one healthy group cannot stand in for a slow one.
struct BandwidthRow {
  std::string size;  // "1 GB"
  std::string alg_bw;
  std::string bus_bw;
  std::int64_t samples = 0;
  bool provisional = false;  // the measurement did not complete as JobSucceeded
  std::string provisional_reason;
};

struct CliqueRow {
  std::string name;
  std::int64_t total = 0;
  std::int64_t validated = 0;
  bool passed = false;
};

// The pod whose failure ended a failed group's Job, with a (sanitised on output) log tail.
struct FailureLogReport {
  std::string pod_name;
  std::string node_name;
  std::int32_t exit_code = 0;
  std::string reason;
  std::string tail;
};

struct FailedGroup {
  std::string name;
  std::int64_t node_count = 0;
  std::vector<std::string> nodes;
  std::string reason;
  std::optional<FailureLogReport> failure_log;
};

// One group of a multi-group Workflow: its peak bus bandwidth (largest message size).
struct GroupBandwidthRow {
  std::string group;  // group-0
  std::string label;  // "clique-0 (18 nodes)", "group-0 (a, b)", "group-0 (8 nodes)"
  std::vector<std::string> nodes;
  std::string bus_bw;  // "" when the group has no bandwidth data
  std::vector<std::string> transport;
  bool below_min = false;  // the busBandwidthGBps minimum is missed
  bool failed = false;     // the group's Job failed
  bool provisional = false;
  std::string provisional_reason;
};

// What only the HTML page (html.hpp) draws; not part of the JSON, whose fields are NVCRE's.

// One message size of a group's measurement, in bytes and GB/s.
struct BandwidthPoint {
  std::int64_t size_bytes = 0;
  double bus_gbps = 0;
  double alg_gbps = 0;
};

// Every message size one group's measurement recorded, in size order.
struct BandwidthCurve {
  std::string group;
  std::string label;  // as GroupBandwidthRow::label
  std::vector<BandwidthPoint> points;
  bool failed = false;
  bool provisional = false;
};

// The busBandwidthGBps threshold and the value where its verdict flips (for drawing): a minimum
// when values above it pass, an upper bound when values below it pass.
struct BandwidthThreshold {
  std::string expression;
  std::optional<double> boundary_gbps;
  bool minimum = true;
};

// One Job of a diagnose round.
struct DiagnoseJob {
  std::string job;  // the Job's name
  std::string group;
  std::vector<std::string> nodes;
  std::string verdict;  // Succeeded | Failed | HardwareFailed | ValidationFailed | Running
  std::string message;  // the failure's condition message
};

struct DiagnoseRound {
  std::string stage;  // api::diagnose_stage::* ("unknown" for an unrecognised group name)
  std::vector<DiagnoseJob> jobs;
};

// A node's verdict over every category, and why.
struct NodeVerdict {
  std::string name;
  std::string verdict;               // Passed | Failed | Excluded | Running | Untested
  std::vector<std::string> reasons;  // "<domain>/<variant>: <reason>: <message>"
};

struct CategoryReport {
  std::string domain;
  std::string variant;
  std::string status;  // Succeeded | Failed | Running | Pending | ""
  std::string failure_reason;
  std::string runtime;
  std::string test_scale;
  std::int64_t nodes_per_job = 0;
  std::int64_t jobs = 0;
  std::string mnnvl;  // Enabled | Disabled | ""
  std::vector<FailedGroup> failed_groups;
  std::vector<CliqueRow> cliques;
  std::vector<DomainMetrics> domains;
  std::vector<std::string> transport;
  std::vector<BandwidthRow> bandwidth;
  std::vector<GroupBandwidthRow> group_bandwidth;
  std::vector<IterationRow> iterations;  // only when more than one
  // HTML only.
  std::vector<BandwidthCurve> curves;
  BandwidthThreshold threshold;
  std::vector<DiagnoseRound> diagnose_rounds;  // empty unless the Workflow runs in diagnose mode
  std::string diagnose_stage;
};

struct CertificationReport {
  std::string title;  // "" = "Certification Report"
  std::string name;
  std::string platform;
  std::string gpu;
  std::int64_t total_nodes = 0;
  std::vector<std::string> excluded_nodes;
  std::string exclusion_reason;
  std::vector<CategoryReport> categories;
  std::vector<std::string> failed_nodes;  // sorted union over the categories
  std::string result;                     // kResult*
  std::vector<NodeResultRow> node_results;
  std::vector<NodeVerdict> nodes;  // HTML only: every node named anywhere, sorted by name
};

// The JSON form (field names and order as NVCRE writes them; empty optional fields omitted,
// failedNodes always present: null when empty).
boost::json::value to_json(const CertificationReport& report);
boost::json::value to_json(const CategoryReport& category);

// --results-file content: one object for one report, an array for several; indented, newline
// terminated.
std::string results_json(const std::vector<CertificationReport>& reports);

}  // namespace nvcre::report
