// Diagnose transitions: what a finished round means and which round (or verdict) follows.
#include "measure/threshold_check.hpp"
#include "workflow/diagnose.hpp"

#include <algorithm>
#include <set>

namespace nvcre::workflow::diagnose {

namespace {

namespace stage = api::diagnose_stage;
using Kind = RoundResult::Kind;

constexpr std::string_view kBandwidthKey = "busBandwidthGBps";

void append_unique(std::vector<std::string>& to, const std::vector<std::string>& nodes) {
  for (const auto& n : nodes) {
    if (std::find(to.begin(), to.end(), n) == to.end()) to.push_back(n);
  }
}

void remove_all(std::vector<std::string>& from, const std::vector<std::string>& nodes) {
  const std::set<std::string> drop(nodes.begin(), nodes.end());
  from.erase(std::remove_if(from.begin(), from.end(),
                            [&](const std::string& n) { return drop.count(n) != 0; }),
             from.end());
}

bool contains(const std::vector<std::string>& nodes, const std::string& node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

Group group_of(const api::GroupStatus& g) { return {g.name, g.nodes, g.domains, false}; }

// The screening result key of a group: its domain, else its name.
std::string domain_key(const api::GroupStatus& g) {
  return g.domains.empty() ? g.name : g.domains.front();
}

class Round {
 public:
  explicit Round(const RoundInput& input) : in_(input), s_(input.status) {
    min_size_ = std::max<std::int64_t>(input.min_group_size, 1);
  }

  RoundResult run();

 private:
  bool collect();  // false: a measurement is still to come
  bool gate_fails(const api::GroupStatus& g);
  bool passed(const api::GroupStatus& g) const { return failed_names_.count(g.name) == 0; }

  RoundResult after_intra_screening();
  RoundResult after_no_nvl_screening();
  RoundResult screen_inter_domain();
  RoundResult after_inter_screening();
  RoundResult after_bisection();
  RoundResult after_cross_boundary();
  RoundResult after_confirmation();

  std::vector<Group> failed_screening_cliques() const;
  RoundResult next_groups(const std::vector<Group>& to_split);
  RoundResult next_round(std::string_view next_stage, std::vector<Group> groups,
                         std::string message);
  RoundResult done(std::string message);
  RoundResult fail(std::string message, const std::vector<std::string>& blamed);

  const RoundInput& in_;
  api::DiagnoseStatus s_;
  std::int64_t min_size_ = 1;
  std::vector<Group> failed_;  // failed groups, round order (Failed, or demoted by the gate)
  std::set<std::string> failed_names_;
  std::vector<std::string> demoted_;
  std::string pending_group_;
};

bool Round::gate_fails(const api::GroupStatus& g) {
  auto it = in_.bandwidth.find(g.name);
  if (it == in_.bandwidth.end() || it->second.state == BandwidthObservation::State::Pending) {
    pending_group_ = g.name;
    return false;
  }
  const BandwidthObservation& seen = it->second;
  if (seen.state == BandwidthObservation::State::Unavailable) {
    demoted_.push_back(g.name + ": " + seen.detail);
    return true;
  }
  const auto verdict =
      measure::judge_thresholds({{std::string(kBandwidthKey), in_.bandwidth_threshold}},
                                {{std::string(kBandwidthKey), seen.peak_bus_gbps}}, {}, {});
  if (verdict.outcome == measure::ThresholdVerdict::Outcome::Met) return false;
  demoted_.push_back(g.name + ": " + verdict.message);
  return true;
}

bool Round::collect() {
  const bool gated = !in_.bandwidth_threshold.empty();
  std::vector<std::string> healthy;
  for (const auto& g : in_.groups) {
    bool failed = g.phase != api::group_phase::kSucceeded;
    if (!failed && gated) {
      failed = gate_fails(g);
      if (!pending_group_.empty()) return false;
    }
    if (failed) {
      failed_.push_back(group_of(g));
      failed_names_.insert(g.name);
      continue;
    }
    // A node that failed with NVL and passed only without it is no reference for runs with NVL:
    // it stays a suspect until a run with NVL clears it.
    for (const auto& n : g.nodes) {
      if (s_.stage == stage::kIntraScreeningNoNVL && contains(s_.suspectNodes, n)) continue;
      append_unique(healthy, {n});
    }
  }
  append_unique(s_.healthyNodes, healthy);
  return true;
}

RoundResult Round::run() {
  if (!collect()) {
    RoundResult held;
    held.kind = Kind::Pending;
    held.status = in_.status;
    held.message = "Bandwidth measurement pending for group " + pending_group_;
    return held;
  }
  ++s_.round;
  if (s_.stage == stage::kIntraScreening) return after_intra_screening();
  if (s_.stage == stage::kIntraScreeningNoNVL) return after_no_nvl_screening();
  if (s_.stage == stage::kInterScreening) return after_inter_screening();
  if (s_.stage == stage::kBisection) return after_bisection();
  if (s_.stage == stage::kCrossBoundary) return after_cross_boundary();
  if (s_.stage == stage::kConfirmation) return after_confirmation();
  throw std::invalid_argument("unknown diagnose stage: \"" + s_.stage + "\"");
}

RoundResult Round::after_intra_screening() {
  s_.screeningResults.clear();
  for (const auto& g : in_.groups) s_.screeningResults[domain_key(g)] = {g.nodes, passed(g)};
  for (const auto& g : failed_) append_unique(s_.suspectNodes, g.nodes);
  // With MNNVL off in the template the screening already ran without NVL: a rerun would be the
  // same test.
  if (!in_.mnnvl_enabled || s_.screeningResults.empty()) return screen_inter_domain();
  std::vector<Group> groups;
  for (const auto& [domain, result] : s_.screeningResults)
    groups.push_back({"screen-no-nvl-" + domain, result.nodes, {domain}, false});
  return next_round(stage::kIntraScreeningNoNVL, std::move(groups),
                    "Intra-screening with NVL done: " + std::to_string(s_.healthyNodes.size()) +
                        " healthy, " + std::to_string(s_.suspectNodes.size()) +
                        " suspect. Re-testing without NVL.");
}

RoundResult Round::after_no_nvl_screening() {
  s_.noNVLScreeningResults.clear();
  for (const auto& g : in_.groups) {
    s_.noNVLScreeningResults[domain_key(g)] = {g.nodes, passed(g)};
    if (passed(g)) continue;
    append_unique(s_.suspectNodes, g.nodes);
    append_unique(s_.noNVLSuspectNodes, g.nodes);
    remove_all(s_.healthyNodes, g.nodes);
  }
  return screen_inter_domain();
}

// One healthy representative per group of the finished screening round.
RoundResult Round::screen_inter_domain() {
  Group inter{"inter-domain", {}, {}, false};
  for (const auto& g : in_.groups) {
    auto rep = std::find_if(g.nodes.begin(), g.nodes.end(),
                            [&](const std::string& n) { return contains(s_.healthyNodes, n); });
    if (rep == g.nodes.end()) continue;
    inter.nodes.push_back(*rep);
    if (!g.domains.empty()) inter.domains.push_back(g.domains.front());
  }
  s_.representativeNodes = inter.nodes;
  if (inter.nodes.size() < 2) {
    if (s_.suspectNodes.empty()) return done("All domains healthy, no faults detected");
    std::vector<Group> cliques = failed_screening_cliques();
    if (cliques.empty()) cliques.push_back({"intra-suspects", s_.suspectNodes, {}, false});
    s_.suspectNodes.clear();
    return next_groups(cliques);
  }
  const std::string message = "Screening done: " + std::to_string(s_.healthyNodes.size()) +
                              " healthy, " + std::to_string(s_.suspectNodes.size()) +
                              " suspect nodes. Testing inter-domain fabric.";
  return next_round(stage::kInterScreening, {std::move(inter)}, message);
}

RoundResult Round::after_inter_screening() {
  std::vector<Group> to_split;
  if (!s_.suspectNodes.empty()) {
    to_split = failed_screening_cliques();
    if (to_split.empty()) to_split.push_back({"intra-suspects", s_.suspectNodes, {}, false});
    s_.suspectNodes.clear();
  }
  to_split.insert(to_split.end(), failed_.begin(), failed_.end());
  if (to_split.empty()) return done("All screening passed, no faults detected");
  return next_groups(to_split);
}

RoundResult Round::after_bisection() {
  // Small failed groups become suspects before anything else, so a boundary probe that follows
  // cannot lose them.
  std::vector<Group> to_split;
  for (const auto& g : failed_) {
    if (static_cast<std::int64_t>(g.nodes.size()) <= min_size_) {
      append_unique(s_.suspectNodes, g.nodes);
    } else {
      to_split.push_back(g);
    }
  }
  // Both halves of a split passing alone points at the boundary between them.
  std::map<std::string, std::pair<const api::GroupStatus*, const api::GroupStatus*>> siblings;
  for (const auto& g : in_.groups) {
    if (g.name.size() < 2 || (g.name.back() != 'a' && g.name.back() != 'b')) continue;
    auto& pair = siblings[g.name.substr(0, g.name.size() - 1)];
    (g.name.back() == 'a' ? pair.first : pair.second) = &g;
  }
  std::vector<api::CrossBoundaryProbe> probes;
  for (const auto& [parent, pair] : siblings) {
    if (pair.first == nullptr || pair.second == nullptr || !passed(*pair.first) ||
        !passed(*pair.second))
      continue;
    const auto& domains = pair.first->domains;
    probes.push_back(
        {domains.empty() ? "" : domains.front(), pair.first->nodes, pair.second->nodes, 0});
    remove_all(s_.healthyNodes, pair.first->nodes);
    remove_all(s_.healthyNodes, pair.second->nodes);
  }
  if (!probes.empty()) {
    std::vector<Group> groups;
    for (std::size_t i = 0; i < probes.size(); ++i) {
      for (auto& g : cross_boundary_groups(probes[i].halfA, probes[i].halfB, i))
        groups.push_back(std::move(g));
    }
    const auto count = probes.size();
    s_.crossBoundaryState =
        api::CrossBoundaryState{std::move(probes), std::string(stage::kBisection)};
    return next_round(stage::kCrossBoundary, std::move(groups),
                      "Both-halves-pass detected in " + std::to_string(count) +
                          " groups. Probing cross-boundary infrastructure.");
  }
  if (to_split.empty() && failed_.empty() && s_.suspectNodes.empty())
    return done("Bisection complete: all groups passed");
  return next_groups(to_split);
}

RoundResult Round::after_cross_boundary() {
  if (!s_.crossBoundaryState) throw std::invalid_argument("cross-boundary state is missing");
  const std::string origin = s_.crossBoundaryState->originStage;
  std::vector<api::CrossBoundaryProbe> next;
  auto& probes = s_.crossBoundaryState->pendingProbes;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    api::CrossBoundaryProbe probe = probes[i];
    const std::string prefix = "cross-" + std::to_string(i) + "-";
    const bool mix0_failed = failed_names_.count(prefix + "mix0") != 0;
    const bool mix1_failed = failed_names_.count(prefix + "mix1") != 0;
    if (!mix0_failed && !mix1_failed) {  // transient: the boundary holds after all
      append_unique(s_.healthyNodes, probe.halfA);
      append_unique(s_.healthyNodes, probe.halfB);
      continue;
    }
    const auto fault = api::InfrastructureFault{probe.domain, probe.halfA, probe.halfB, origin};
    if (mix0_failed && mix1_failed) {
      s_.infrastructureFaults.push_back(fault);
      continue;
    }
    ++probe.probeRound;
    if (probe.probeRound > 4 || (probe.halfA.size() <= 2 && probe.halfB.size() <= 2)) {
      s_.infrastructureFaults.push_back(fault);
      continue;
    }
    // Narrow to the halves the failing mix exercised.
    const auto mid_a = std::max<std::size_t>(probe.halfA.size() / 2, 1);
    const auto mid_b = std::max<std::size_t>(probe.halfB.size() / 2, 1);
    if (mix0_failed) {
      probe.halfA.resize(mid_a);
      probe.halfB.resize(mid_b);
    } else {
      probe.halfA.erase(probe.halfA.begin(), probe.halfA.begin() + static_cast<long>(mid_a));
      probe.halfB.erase(probe.halfB.begin(), probe.halfB.begin() + static_cast<long>(mid_b));
    }
    next.push_back(std::move(probe));
  }
  if (!next.empty()) {
    std::vector<Group> groups;
    for (std::size_t i = 0; i < next.size(); ++i) {
      for (auto& g : cross_boundary_groups(next[i].halfA, next[i].halfB, i))
        groups.push_back(std::move(g));
    }
    const auto count = next.size();
    probes = std::move(next);
    return next_round(
        stage::kCrossBoundary, std::move(groups),
        "Cross-boundary probing: narrowing " + std::to_string(count) + " infrastructure faults");
  }
  s_.crossBoundaryState.reset();
  if (!s_.suspectNodes.empty()) return next_groups({});
  if (!s_.infrastructureFaults.empty()) {
    return fail("Diagnosis complete: " + std::to_string(s_.infrastructureFaults.size()) +
                    " infrastructure faults detected",
                {});
  }
  return done("Cross-boundary probing complete: no faults confirmed");
}

RoundResult Round::after_confirmation() {
  std::vector<std::string> confirmed;
  std::vector<std::string> cleared;
  for (const auto& g : in_.groups) {
    if (g.nodes.empty()) continue;
    (passed(g) ? cleared : confirmed).push_back(g.nodes.front());  // the suspect leads its pair
  }
  s_.suspectNodes = confirmed;
  append_unique(s_.healthyNodes, cleared);
  if (confirmed.empty()) return done("All suspects cleared, no faults confirmed");
  return fail("Diagnosis complete: " + std::to_string(confirmed.size()) + " faulty nodes confirmed",
              confirmed);
}

// The screening groups that failed, as `intra-<domain>` (clique boundaries kept for bisection).
std::vector<Group> Round::failed_screening_cliques() const {
  std::vector<Group> groups;
  for (const auto& [domain, result] : s_.screeningResults) {
    if (!result.passed) groups.push_back({"intra-" + domain, result.nodes, {domain}, false});
  }
  return groups;
}

// Bisects `to_split`, or, once nothing is left to split, pairs each suspect with a healthy
// reference for confirmation.
RoundResult Round::next_groups(const std::vector<Group>& to_split) {
  BisectResult split = bisect(to_split, min_size_, s_.round);
  if (!split.converged)
    return next_round(stage::kBisection, split.groups,
                      "Bisection round " + std::to_string(s_.round) + ": " +
                          std::to_string(split.groups.size()) + " groups");
  for (const auto& g : split.groups) append_unique(s_.suspectNodes, g.nodes);
  remove_all(s_.suspectNodes, s_.healthyNodes);
  std::vector<Group> pairs = confirmation_groups(s_.suspectNodes, s_.healthyNodes);
  if (pairs.empty()) {
    return fail("No healthy reference node; " + std::to_string(s_.suspectNodes.size()) +
                    " suspects marked failed",
                s_.suspectNodes);
  }
  const std::string message = "Bisection converged: " + std::to_string(s_.suspectNodes.size()) +
                              " suspects, starting confirmation";
  return next_round(stage::kConfirmation, std::move(pairs), message);
}

RoundResult Round::next_round(std::string_view next_stage, std::vector<Group> groups,
                              std::string message) {
  s_.stage = std::string(next_stage);
  RoundResult result;
  result.kind = Kind::NextRound;
  result.status = s_;
  result.groups = std::move(groups);
  result.message = std::move(message);
  result.demoted = demoted_;
  return result;
}

RoundResult Round::done(std::string message) {
  s_.stage = std::string(stage::kComplete);
  RoundResult result;
  result.kind = Kind::Succeeded;
  result.status = s_;
  result.reason = std::string(api::workflow_reason::kJobCompleted);
  result.message = std::move(message);
  result.succeeded_nodes = s_.healthyNodes;
  result.demoted = demoted_;
  return result;
}

RoundResult Round::fail(std::string message, const std::vector<std::string>& blamed) {
  s_.stage = std::string(stage::kComplete);
  RoundResult result;
  result.kind = Kind::Failed;
  result.status = s_;
  result.reason = std::string(api::workflow_reason::kIterationsFailed);
  for (const auto& node : blamed) {
    result.failed_nodes.push_back(
        {node, std::string(api::node_failure_reason::kWorkloadFailed), message});
  }
  result.message = std::move(message);
  result.succeeded_nodes = s_.healthyNodes;
  result.demoted = demoted_;
  return result;
}

}  // namespace

RoundResult complete_round(const RoundInput& input) { return Round(input).run(); }

}  // namespace nvcre::workflow::diagnose
