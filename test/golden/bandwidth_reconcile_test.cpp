// Golden suite `bandwidth-reconcile` for measurement/bandwidth_reconciler.hpp. input.yaml is the
// reconcile-case format (test/support/reconcile_case.hpp) plus
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
#include "measurement/bandwidth_reconciler.hpp"
#include "test/support/golden.hpp"
#include "test/support/reconcile_case.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
using nvcre::reconcile::PodLogAnswer;
using nvcre::reconcile::PodLogWant;
using nvcre::testing::GoldenCase;
using nvcre::testing::ReconcileCase;

// The entry of extra.podLogs that answers `want`, if any.
const json::object* answer_for(const json::value& extra, const PodLogWant& want) {
  const json::array* logs =
      extra.is_object() ? nvcre::jsonkit::find_array(extra.get_object(), {"podLogs"}) : nullptr;
  if (logs == nullptr) return nullptr;
  for (const auto& entry : *logs) {
    const json::object& o = entry.as_object();
    const bool whole = o.contains("wholeLog") && o.at("wholeLog").as_bool();
    if (nvcre::jsonkit::string_at(entry, {"pod"}) != want.pod || whole != want.whole_log) continue;
    if (o.contains("sinceTime") &&
        nvcre::jsonkit::string_at(entry, {"sinceTime"}) != want.since_time)
      continue;
    return &o;
  }
  return nullptr;
}

nvcre::reconcile::Result run(const ReconcileCase& c) {
  const json::value memo = c.extra.is_object() && c.extra.as_object().contains("memo")
                               ? c.extra.at("memo")
                               : json::value();
  std::map<std::string, PodLogAnswer> answers;
  for (;;) {
    auto result = nvcre::measurement::reconcile_bandwidth_measurement(
        {c.object ? &*c.object : nullptr, c.cache, c.live, c.outcome, c.now, answers, c.no_builds,
         memo});
    bool answered = false;
    for (const auto& want : result.wanted_pod_logs) {
      const json::object* entry = answer_for(c.extra, want);
      if (entry == nullptr) continue;
      PodLogAnswer answer{nvcre::jsonkit::string_at(*entry, {"text"}),
                          nvcre::jsonkit::string_at(*entry, {"error"})};
      answered |= answers.emplace(nvcre::reconcile::pod_log_key(want), std::move(answer)).second;
    }
    if (!answered) return result;
  }
}

json::value render(const nvcre::reconcile::Result& result) {
  json::object out = k8s::plan_to_json(result.plan).as_object();
  if (!result.wanted_pod_logs.empty()) {
    json::array wanted;
    for (const auto& want : result.wanted_pod_logs) {
      wanted.push_back(json::object{{"namespace", want.ns},
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

void check_contract(const ReconcileCase& c, const nvcre::reconcile::Result& result) {
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
  EXPECT_EQ(render(run(c)), render(result)) << "not pure";
}

class BandwidthReconcile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(BandwidthReconcile, Plans) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const ReconcileCase c = nvcre::testing::load_reconcile_case(golden_case);
    const auto result = run(c);
    check_contract(c, result);
    return nvcre::jsonkit::to_yaml(render(result));
  });
}

NVCRE_GOLDEN_SUITE(BandwidthReconcile, "bandwidth-reconcile");

}  // namespace
