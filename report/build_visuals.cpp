// What the HTML page draws beyond the text report: every group's bandwidth curve, each node's
// verdict over the categories, and the diagnose rounds.
#include "api/conditions.hpp"
#include "api/labels.hpp"
#include "measure/goodput.hpp"
#include "report/build.hpp"
#include "report/build_parts.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

namespace nvcre::report {
namespace detail {

std::vector<BandwidthCurve> bandwidth_curves(
    const api::OrchestrationStatus& orchestration,
    const std::vector<const api::BandwidthMeasurement*>& measurements) {
  const auto by_job = groups_by_job(orchestration);
  std::map<std::string, const api::BandwidthMeasurement*> by_group;
  for (const auto* measurement : measurements) {
    auto it = by_job.find(measurement->spec.jobRef.name);
    if (it != by_job.end() && measurement->status && !measurement->status->results.empty())
      by_group[it->second->name] = measurement;
  }
  std::vector<BandwidthCurve> curves;
  for (const auto& group : orchestration.groups) {
    auto it = by_group.find(group.name);
    if (it == by_group.end()) continue;
    BandwidthCurve curve;
    curve.group = group.name;
    curve.label = group_label(group);
    curve.failed = group.phase == api::group_phase::kFailed;
    curve.provisional = finality_of(it->second->status->conditions).provisional;
    for (const auto& result : it->second->status->results)
      curve.points.push_back({result.sizeBytes, measure::parse_status_number(result.busBW),
                              measure::parse_status_number(result.algBW)});
    std::stable_sort(curve.points.begin(), curve.points.end(),
                     [](const auto& a, const auto& b) { return a.size_bytes < b.size_bytes; });
    curves.push_back(std::move(curve));
  }
  return curves;
}

void NodeVerdicts::add_category(const std::string& label,
                                const api::OrchestrationStatus* orchestration,
                                const std::map<std::string, api::NodeResult>* results,
                                const std::vector<api::FailedNode>& failed,
                                const std::vector<std::string>& succeeded) {
  const auto touch = [&](const std::string& name) -> NodeVerdict& {
    NodeVerdict& node = nodes_[name];
    node.name = name;
    return node;
  };
  if (results != nullptr)
    for (const auto& [name, result] : *results) {
      NodeVerdict& node = touch(name);
      if (result.status == "Passed" && node.verdict.empty()) node.verdict = "Passed";
      if (result.status == "Failed") node.verdict = "Failed";
    }
  const std::set<std::string> named = [&] {
    std::set<std::string> out;
    for (const auto& entry : failed) out.insert(entry.name);
    return out;
  }();
  // A node failed by its result but absent from the failed-nodes list still says where.
  if (results != nullptr)
    for (const auto& [name, result] : *results)
      if (result.status == "Failed" && !named.count(name))
        nodes_[name].reasons.push_back(label + ": failed in " + result.group);
  for (const auto& entry : failed) {
    if (entry.name.empty()) continue;
    NodeVerdict& node = touch(entry.name);
    node.verdict = "Failed";
    std::string reason = label + ": " + entry.reason;
    if (!entry.message.empty()) reason += ": " + entry.message;
    node.reasons.push_back(std::move(reason));
  }
  for (const auto& name : succeeded) {
    NodeVerdict& node = touch(name);
    if (node.verdict.empty()) node.verdict = "Passed";
  }
  // Nodes of groups without a result yet: running while their group is not done.
  if (orchestration != nullptr)
    for (const auto& group : orchestration->groups) {
      const bool done =
          group.phase == api::group_phase::kSucceeded || group.phase == api::group_phase::kFailed;
      for (const auto& name : group.nodes) {
        NodeVerdict& node = touch(name);
        if (node.verdict.empty() && !done) node.verdict = "Running";
      }
    }
}

void NodeVerdicts::exclude(const std::vector<std::string>& nodes, const std::string& reason) {
  for (const auto& name : nodes) {
    NodeVerdict& node = nodes_[name];
    node.name = name;
    if (node.verdict.empty()) node.verdict = "Excluded";
    node.reasons.push_back("excluded" + (reason.empty() ? std::string() : ": " + reason));
  }
}

std::vector<NodeVerdict> NodeVerdicts::rows() const {
  std::vector<NodeVerdict> out;
  for (const auto& [name, node] : nodes_) {
    out.push_back(node);
    if (out.back().verdict.empty()) out.back().verdict = "Untested";
  }
  return out;
}

}  // namespace detail

namespace {

// A round group's stage and where its round falls in a run: screening, the no-NVL rerun, the
// inter-domain round, bisection rounds by number, cross-boundary probes, then confirmation.
std::pair<std::string, std::int64_t> stage_of(std::string_view group) {
  if (group.starts_with("screen-no-nvl-")) return {"intra-screening-no-nvl", 1};
  if (group.starts_with("screen-")) return {"intra-screening", 0};
  if (group == "inter-domain") return {"inter-screening", 2};
  if (group.starts_with("bisect-")) {
    std::int64_t round = 0;
    for (char c : group.substr(7)) {
      if (c < '0' || c > '9') break;
      round = round * 10 + (c - '0');
    }
    return {"bisection", 3 + round};
  }
  if (group.starts_with("cross-")) return {"cross-boundary", 1'000'000};
  if (group.starts_with("confirm-")) return {"confirmation", 2'000'000};
  return {"unknown", 3'000'000};
}

// ValidationFailed first (a threshold miss leaves the Job Succeeded), then Failed /
// HardwareFailed / Succeeded; Running without a terminal condition.
std::pair<std::string, std::string> verdict_of(const api::Job& job) {
  std::pair<std::string, std::string> verdict{"Running", ""};
  if (!job.status) return verdict;
  for (const auto& condition : job.status->conditions) {
    if (condition.status != "True") continue;
    if (condition.type == api::kConditionValidationFailed)
      return {condition.type, condition.message};
    if (condition.type == api::kConditionSucceeded || condition.type == api::kConditionFailed ||
        condition.type == "HardwareFailed")
      verdict = {condition.type,
                 condition.type == api::kConditionSucceeded ? "" : condition.message};
  }
  return verdict;
}

std::vector<std::string> split_nodes(const std::string& csv) {
  std::vector<std::string> out;
  std::istringstream in(csv);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

std::vector<DiagnoseRound> diagnose_rounds(const std::string& workflow,
                                           const std::vector<const api::Job*>& jobs) {
  struct Entry {
    std::int64_t rank;
    std::string created;
    DiagnoseJob job;
  };
  std::vector<Entry> mine;
  for (const auto* job : jobs) {
    const auto& labels = job->metadata.labels;
    auto owner = labels.find(std::string(api::kWorkflowLabel));
    if (owner == labels.end() || owner->second != workflow) continue;
    auto group = labels.find(std::string(api::kGroupLabel));
    Entry entry{0, job->metadata.creationTimestamp, {}};
    entry.job.job = job->metadata.name;
    entry.job.group = group == labels.end() ? job->metadata.name : group->second;
    entry.rank = stage_of(entry.job.group).second;
    if (auto nodes = job->metadata.annotations.find(std::string(api::kGroupNodesAnnotation));
        nodes != job->metadata.annotations.end())
      entry.job.nodes = split_nodes(nodes->second);
    std::tie(entry.job.verdict, entry.job.message) = verdict_of(*job);
    mine.push_back(std::move(entry));
  }
  std::sort(mine.begin(), mine.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.rank, a.created, a.job.group) < std::tie(b.rank, b.created, b.job.group);
  });
  // Only cross-boundary rounds repeat group names: a repeated name starts a new round.
  std::vector<DiagnoseRound> rounds;
  std::int64_t rank = -1;
  for (auto& entry : mine) {
    const bool repeats =
        !rounds.empty() &&
        std::any_of(rounds.back().jobs.begin(), rounds.back().jobs.end(),
                    [&](const auto& other) { return other.group == entry.job.group; });
    if (rounds.empty() || rank != entry.rank || repeats)
      rounds.push_back({stage_of(entry.job.group).first, {}});
    rank = entry.rank;
    rounds.back().jobs.push_back(std::move(entry.job));
  }
  return rounds;
}

}  // namespace nvcre::report
