// Golden suite `job-reconcile` for workflow/job_reconciler.hpp. input.yaml is the reconcile-case
// format (test/support/reconcile_case.hpp) plus `extra.podLogTails: {pod: text}`, the log tails the
// caller has already read. expected.yaml is plan_to_json(plan), with `wantedPodLogs` added when the
// reconcile asks for logs.
//
// Besides the golden comparison every case is held to the contract's invariants: a plan that waits
// for reads writes nothing, status writes are conditional and single, reconciles are pure, and a
// status write converges (applying it and reconciling again writes no further status).
#include "jsonkit/yaml.hpp"
#include "jsonkit/merge_patch.hpp"
#include "test/support/golden.hpp"
#include "test/support/reconcile_case.hpp"
#include "job/job_reconciler.hpp"
#include "jsonkit/named_merge.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
using nvcre::testing::GoldenCase;
using nvcre::testing::ReconcileCase;

std::map<std::string, std::string> log_tails(const json::value& extra) {
  std::map<std::string, std::string> tails;
  const json::object* o = extra.if_object();
  const json::value* given = o == nullptr ? nullptr : o->if_contains("podLogTails");
  if (given == nullptr || !given->is_object()) return tails;
  for (const auto& [pod, text] : given->get_object()) tails[pod] = std::string(text.as_string());
  return tails;
}

// The tails of the case answer the reconcile's wants for those pods, as the shell would.
nvcre::reconcile::Result run(const json::value* object, const ReconcileCase& c,
                             const std::optional<k8s::ActionOutcome>& outcome,
                             const std::map<std::string, std::string>& tails) {
  std::map<std::string, nvcre::reconcile::PodLogAnswer> answers;
  for (;;) {
    auto result = nvcre::job::reconcile_job(
        {object, c.cache, c.live, outcome, c.now, answers, c.no_builds, c.no_memo});
    bool answered = false;
    for (const auto& want : result.wanted_pod_logs) {
      auto tail = tails.find(want.pod);
      if (tail == tails.end()) continue;
      answered |= answers
                      .emplace(nvcre::reconcile::pod_log_key(want),
                               nvcre::reconcile::PodLogAnswer{tail->second, ""})
                      .second;
    }
    if (!answered) return result;
  }
}

json::value render(const nvcre::reconcile::Result& result) {
  json::object out = k8s::plan_to_json(result.plan).as_object();
  if (!result.wanted_pod_logs.empty()) {
    json::array wanted;
    for (const auto& request : result.wanted_pod_logs) {
      wanted.push_back(json::object{{"namespace", request.ns},
                                    {"pod", request.pod},
                                    {"container", request.container},
                                    {"previous", request.previous},
                                    {"tailLines", request.tail_lines},
                                    {"limitBytes", request.limit_bytes}});
    }
    out["wantedPodLogs"] = std::move(wanted);
  }
  return out;
}

bool is_write(const k8s::Action& action) { return action.verb != k8s::ActionVerb::LiveGet; }

void check_invariants(const ReconcileCase& c, const std::map<std::string, std::string>& tails,
                      const nvcre::reconcile::Result& result) {
  const auto& plan = result.plan;
  if (!c.object) {
    EXPECT_TRUE(plan.actions.empty()) << "nothing to act on";
    return;
  }
  const bool live_get =
      std::any_of(plan.actions.begin(), plan.actions.end(),
                  [](const k8s::Action& a) { return a.verb == k8s::ActionVerb::LiveGet; });
  if (live_get || !result.wanted_pod_logs.empty()) {
    EXPECT_TRUE(std::none_of(plan.actions.begin(), plan.actions.end(), is_write))
        << "a waiting plan writes";
    EXPECT_TRUE(plan.events.empty() && !plan.requeue_after && plan.error.empty())
        << "a waiting plan decides";
  }
  // Of the Job itself (a checkpoint restart also patches its GoodputMeasurement's status).
  const auto job_status_write = [](const k8s::Action& a) {
    return a.verb == k8s::ActionVerb::MergePatchStatus && a.target.kind == "Job";
  };
  const auto status_writes =
      std::count_if(plan.actions.begin(), plan.actions.end(), job_status_write);
  EXPECT_LE(status_writes, 1) << "one conditional status write per pass";
  for (const auto& action : plan.actions) {
    if ((action.verb != k8s::ActionVerb::MergePatchStatus &&
         action.verb != k8s::ActionVerb::MergePatch) ||
        action.target.kind != "Job")
      continue;
    EXPECT_EQ(action.body.at("metadata").at("resourceVersion"),
              c.object->at("metadata").at("resourceVersion"))
        << "writes of the Job must be conditional on the version they were computed from";
  }
  EXPECT_EQ(render(run(c.object ? &*c.object : nullptr, c, c.outcome, tails)), render(result))
      << "not pure";

  // Convergence: the Job as written, reconciled again (no outcome: the write succeeded).
  auto write = std::find_if(plan.actions.begin(), plan.actions.end(), job_status_write);
  if (write == plan.actions.end()) return;
  json::value written = *c.object;
  written.as_object()["status"] = nvcre::jsonkit::merge_patch(
      c.object->as_object().contains("status") ? c.object->at("status")
                                               : json::value(json::object()),
      write->body.at("status"));
  const auto again = run(&written, c, std::nullopt, tails);
  EXPECT_TRUE(std::none_of(again.plan.actions.begin(), again.plan.actions.end(), job_status_write))
      << "the status write does not converge:\n"
      << nvcre::jsonkit::to_yaml(render(again));
}

class JobReconcile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(JobReconcile, Plans) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const ReconcileCase c = nvcre::testing::load_reconcile_case(golden_case);
    const auto tails = log_tails(c.extra);
    const auto result = run(c.object ? &*c.object : nullptr, c, c.outcome, tails);
    check_invariants(c, tails, result);
    return nvcre::jsonkit::to_yaml(render(result));
  });
}

NVCRE_GOLDEN_SUITE(JobReconcile, "job-reconcile");

}  // namespace
