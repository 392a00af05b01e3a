// Golden suite `workflow-diagnose` for nvcre::workflow::diagnose: a diagnose run played round by
// round against a fault model, from the screening groups to the verdict.
//   input.yaml
//     nodes: N                  node-00 .. node-<N-1>
//     domains: D                optional: consecutive runs of N/D nodes labelled rack-<d>
//     topologyKey: KEY          optional: the label the domains are written under, and the
//                               diagnose topology key
//     minGroupSize: M           default 2
//     mnnvl: bool               the template enables MNNVL
//     bandwidthThreshold: EXPR  optional busBandwidthGBps threshold (the bandwidth gate)
//     faults:
//       faulty: [node]          every group holding the node fails
//       nvlFaulty: [node]       fails its groups unless their Job runs with MNNVL off
//       boundary: [{a: [..], b: [..]}]   fails a group holding nodes of both sides
//       slow: {node: GBPS}      a group's peak bus bandwidth is its slowest node's (else 370)
//       measurementUnavailable: [node]   its groups' measurements complete without results
//       pendingEvaluations: K   the first K evaluations find a measurement still to come
// Output: each round (stage, groups with their nodes, whether MNNVL was forced off and how they
// ended, the decision), the verdict with failed and succeeded nodes, the final DiagnoseStatus, and
// the cost (rounds, Jobs).
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "workflow/diagnose.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace {

namespace json = boost::json;
namespace diagnose = nvcre::workflow::diagnose;
using nvcre::testing::GoldenCase;
using Kind = diagnose::RoundResult::Kind;
using State = diagnose::BandwidthObservation::State;

constexpr double kHealthyBusGbps = 370;
constexpr int kRoundLimit = 40;

std::vector<std::string> strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = o.if_contains(key)) {
    for (const auto& v : a->as_array()) out.emplace_back(v.as_string());
  }
  return out;
}

std::string joined(const std::vector<std::string>& nodes) {
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n;
  return out;
}

struct Faults {
  std::set<std::string> faulty, nvl_faulty, unavailable;
  std::vector<std::pair<std::set<std::string>, std::set<std::string>>> boundaries;
  std::map<std::string, double> slow;
  int pending_evaluations = 0;

  explicit Faults(const json::object& f) {
    for (const auto& n : strings(f, "faulty")) faulty.insert(n);
    for (const auto& n : strings(f, "nvlFaulty")) nvl_faulty.insert(n);
    for (const auto& n : strings(f, "measurementUnavailable")) unavailable.insert(n);
    if (const auto* b = f.if_contains("boundary")) {
      for (const auto& side : b->as_array()) {
        auto a = strings(side.as_object(), "a");
        auto z = strings(side.as_object(), "b");
        boundaries.push_back({{a.begin(), a.end()}, {z.begin(), z.end()}});
      }
    }
    if (const auto* s = f.if_contains("slow")) {
      for (const auto& [node, gbps] : s->as_object()) slow[node] = json::value_to<double>(gbps);
    }
    if (const auto* p = f.if_contains("pendingEvaluations"))
      pending_evaluations = static_cast<int>(p->as_int64());
  }

  bool fails(const std::vector<std::string>& nodes, bool mnnvl_on) const {
    auto holds = [&](const std::set<std::string>& set) {
      return std::any_of(nodes.begin(), nodes.end(),
                         [&](const std::string& n) { return set.count(n) != 0; });
    };
    if (holds(faulty) || (mnnvl_on && holds(nvl_faulty))) return true;
    return std::any_of(boundaries.begin(), boundaries.end(),
                       [&](const auto& pair) { return holds(pair.first) && holds(pair.second); });
  }

  diagnose::BandwidthObservation bandwidth(const std::vector<std::string>& nodes) const {
    double peak = kHealthyBusGbps;
    for (const auto& n : nodes) {
      if (unavailable.count(n) != 0)
        return {State::Unavailable, 0, "measurement complete without final results"};
      if (auto it = slow.find(n); it != slow.end()) peak = std::min(peak, it->second);
    }
    return {State::Measured, peak, ""};
  }
};

std::vector<nvcre::workflow::PartitionNode> cluster(const json::object& input, std::string& key) {
  const auto count = static_cast<int>(input.at("nodes").as_int64());
  const int domains =
      input.contains("domains") ? static_cast<int>(input.at("domains").as_int64()) : 0;
  key = input.contains("topologyKey") ? std::string(input.at("topologyKey").as_string()) : "";
  if (domains > 0 && key.empty())
    throw std::invalid_argument("input.yaml: domains need a topologyKey");
  std::vector<nvcre::workflow::PartitionNode> nodes;
  for (int i = 0; i < count; ++i) {
    nvcre::workflow::PartitionNode node{(i < 10 ? "node-0" : "node-") + std::to_string(i), {}};
    if (domains > 0) node.labels[key] = "rack-" + std::to_string(i / (count / domains));
    nodes.push_back(std::move(node));
  }
  return nodes;
}

json::object verdict_of(const diagnose::RoundResult& r) {
  json::array failed;
  for (const auto& f : r.failed_nodes)
    failed.push_back(json::object{{"name", f.name}, {"reason", f.reason}, {"message", f.message}});
  return {{"condition", r.kind == Kind::Succeeded ? "Succeeded" : "Failed"},
          {"reason", r.reason},
          {"message", r.message},
          {"failedNodes", std::move(failed)},
          {"succeededNodes", joined(r.succeeded_nodes)}};
}

std::string play(const GoldenCase& golden_case) {
  const json::object input =
      nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
  std::string key;
  auto nodes = cluster(input, key);
  Faults faults(input.contains("faults") ? input.at("faults").as_object() : json::object{});
  diagnose::RoundInput round;
  round.min_group_size = input.contains("minGroupSize") ? input.at("minGroupSize").as_int64() : 2;
  round.mnnvl_enabled = input.contains("mnnvl") && input.at("mnnvl").as_bool();
  if (input.contains("bandwidthThreshold"))
    round.bandwidth_threshold = std::string(input.at("bandwidthThreshold").as_string());
  round.status.stage = std::string(nvcre::api::diagnose_stage::kIntraScreening);
  std::vector<diagnose::Group> groups = diagnose::screening_groups(nodes, key);

  json::array rounds;
  std::int64_t jobs = 0;
  for (int n = 1; n <= kRoundLimit; ++n) {
    json::object entry{{"stage", round.status.stage}};
    json::array ran;
    round.groups.clear();
    round.bandwidth.clear();
    for (const auto& g : groups) {
      const bool off = diagnose::forces_mnnvl_off(round.status, g.nodes);
      const bool failed = faults.fails(g.nodes, round.mnnvl_enabled && !off);
      nvcre::api::GroupStatus status;
      status.name = g.name;
      status.nodes = g.nodes;
      status.domains = g.domains;
      status.phase = failed ? "Failed" : "Succeeded";
      round.groups.push_back(status);
      if (!failed) round.bandwidth[g.name] = faults.bandwidth(g.nodes);
      json::object shown{{"name", g.name}, {"nodes", joined(g.nodes)}, {"phase", status.phase}};
      if (off) shown["mnnvl"] = "forced off";
      if (!failed && !round.bandwidth_threshold.empty())
        shown["peakBusGbps"] = round.bandwidth[g.name].peak_bus_gbps;
      ran.push_back(std::move(shown));
    }
    jobs += static_cast<std::int64_t>(groups.size());
    entry["groups"] = std::move(ran);
    diagnose::RoundResult result;
    json::array holds;
    while (true) {
      if (faults.pending_evaluations > 0 && !round.bandwidth.empty()) {
        --faults.pending_evaluations;
        auto held_input = round;
        held_input.bandwidth.erase(held_input.bandwidth.begin());
        result = diagnose::complete_round(held_input);
      } else {
        result = diagnose::complete_round(round);
      }
      if (result.kind != Kind::Pending) break;
      if (result.status != round.status) throw std::logic_error("a held round changed the status");
      holds.push_back(json::value(result.message));
    }
    if (!holds.empty()) entry["held"] = std::move(holds);
    if (!result.demoted.empty()) {
      json::array demoted;
      for (const auto& d : result.demoted) demoted.push_back(json::value(d));
      entry["demoted"] = std::move(demoted);
    }
    entry["decision"] = result.message;
    rounds.push_back(std::move(entry));
    round.status = result.status;
    if (result.kind != Kind::NextRound) {
      const auto round_count = rounds.size();
      return nvcre::jsonkit::to_pretty_json(
          json::object{{"rounds", std::move(rounds)},
                       {"verdict", verdict_of(result)},
                       {"diagnose", nvcre::api::encode(result.status)},
                       {"cost", json::object{{"rounds", round_count}, {"jobs", jobs}}}});
    }
    groups = result.groups;
  }
  throw std::runtime_error("no verdict after " + std::to_string(kRoundLimit) + " rounds");
}

class WorkflowDiagnose : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(WorkflowDiagnose, PlaysToTheVerdict) { nvcre::testing::check_golden(GetParam(), play); }

NVCRE_GOLDEN_SUITE(WorkflowDiagnose, "workflow-diagnose");

}  // namespace
