#pragma once
// The golden harness of the measurement reconcile suites (bandwidth-reconcile,
// goodput-reconcile). input.yaml is the reconcile-case format (test/support/reconcile_case.hpp)
// plus
//   extra.memo: {...}                       the reconciler's memo from earlier passes
//   extra.podLogs: [{pod, wholeLog?, sinceTime?, text | error}]   answers to the pass's log wants
// Logs are answered the way the shell does (the pass is re-run until no further want is
// answered). expected.yaml is plan_to_json(plan) plus `wantedPodLogs` (still unanswered) and
// `memo` (when the pass sets one).
//
// Every case is also held to the contract: a plan waiting for reads writes nothing, at most one
// conditional status write, and the same input plans the same way twice.
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "reconcile/contract.hpp"
#include "test/support/golden.hpp"
#include "test/support/reconcile_case.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

namespace nvcre::testing::measurement_harness {

// The entry of extra.podLogs that answers `want`, if any.
inline const boost::json::object* answer_for(const boost::json::value& extra,
                                             const reconcile::PodLogWant& want) {
  const boost::json::array* logs =
      extra.is_object() ? jsonkit::find_array(extra.get_object(), {"podLogs"}) : nullptr;
  if (logs == nullptr) return nullptr;
  for (const auto& entry : *logs) {
    const boost::json::object& o = entry.as_object();
    const bool whole = o.contains("wholeLog") && o.at("wholeLog").as_bool();
    if (jsonkit::string_at(entry, {"pod"}) != want.pod || whole != want.whole_log) continue;
    if (o.contains("sinceTime") && jsonkit::string_at(entry, {"sinceTime"}) != want.since_time)
      continue;
    return &o;
  }
  return nullptr;
}

inline reconcile::Result run(const reconcile::Function& reconcile_fn, const ReconcileCase& c) {
  const boost::json::value memo = c.extra.is_object() && c.extra.as_object().contains("memo")
                                      ? c.extra.at("memo")
                                      : boost::json::value();
  std::map<std::string, reconcile::PodLogAnswer> answers;
  for (;;) {
    auto result = reconcile_fn({c.object ? &*c.object : nullptr, c.cache, c.live, c.outcome, c.now,
                                answers, c.no_builds, memo});
    bool answered = false;
    for (const auto& want : result.wanted_pod_logs) {
      const boost::json::object* entry = answer_for(c.extra, want);
      if (entry == nullptr) continue;
      reconcile::PodLogAnswer answer{jsonkit::string_at(*entry, {"text"}),
                                     jsonkit::string_at(*entry, {"error"})};
      answered |= answers.emplace(reconcile::pod_log_key(want), std::move(answer)).second;
    }
    if (!answered) return result;
  }
}

inline boost::json::value render(const reconcile::Result& result) {
  boost::json::object out = k8s::plan_to_json(result.plan).as_object();
  if (!result.wanted_pod_logs.empty()) {
    boost::json::array wanted;
    for (const auto& want : result.wanted_pod_logs) {
      wanted.push_back(boost::json::object{{"namespace", want.ns},
                                           {"pod", want.pod},
                                           {"container", want.container},
                                           {"timestamps", want.timestamps},
                                           {"sinceTime", want.since_time},
                                           {"limitBytes", want.limit_bytes},
                                           {"wholeLog", want.whole_log}});
    }
    out["wantedPodLogs"] = std::move(wanted);
  }
  if (result.memo) out["memo"] = *result.memo;
  return out;
}

inline void check_contract(const reconcile::Function& reconcile_fn, const ReconcileCase& c,
                           const reconcile::Result& result) {
  const auto& actions = result.plan.actions;
  const bool waiting = !result.wanted_pod_logs.empty() ||
                       std::any_of(actions.begin(), actions.end(), [](const k8s::Action& a) {
                         return a.verb == k8s::ActionVerb::LiveGet;
                       });
  if (waiting) {
    EXPECT_TRUE(std::all_of(actions.begin(), actions.end(), [](const k8s::Action& a) {
      return a.verb == k8s::ActionVerb::LiveGet;
    })) << "a waiting plan writes";
    EXPECT_TRUE(result.plan.events.empty() && !result.plan.requeue_after && !result.memo)
        << "a waiting plan decides";
  }
  EXPECT_LE(std::count_if(
                actions.begin(), actions.end(),
                [](const k8s::Action& a) { return a.verb == k8s::ActionVerb::MergePatchStatus; }),
            1)
      << "one conditional status write per pass";
  EXPECT_EQ(render(run(reconcile_fn, c)), render(result)) << "not pure";
}

// The golden check of one case: the plan as YAML, held to the contract.
inline void check_case(const GoldenCase& golden_case, const reconcile::Function& reconcile_fn) {
  check_golden(golden_case, [&](const GoldenCase& gc) {
    const ReconcileCase c = load_reconcile_case(gc);
    const auto result = run(reconcile_fn, c);
    check_contract(reconcile_fn, c, result);
    return jsonkit::to_yaml(render(result));
  });
}

}  // namespace nvcre::testing::measurement_harness
