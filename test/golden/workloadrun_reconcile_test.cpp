// The WorkloadRun reconcile as a pure function.
//   workloadrun-reconcile/<case>/input.yaml: now, object, cache, live, outcome (test/support/
//   reconcile_case.hpp); expected.yaml: the plan.
// Every case is also held to the contract's invariants: LiveGets come alone, status writes are
// conditional, a created Workflow carries the run's name and is controlled by the run, and a
// WorkloadRun never gets a finalizer.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "k8s/reconcile_plan.hpp"
#include "test/support/golden_inputs.hpp"
#include "test/support/reconcile_case.hpp"
#include "workloadrun/reconciler.hpp"

namespace json = boost::json;
using nvcre::k8s::ActionVerb;
using nvcre::testing::find;
using nvcre::testing::GoldenCase;
using nvcre::testing::ReconcileCase;
using nvcre::testing::string_at;

namespace {

bool controlled_by(const json::value& child, const json::value& owner) {
  const auto* owners = find(child, {"metadata", "ownerReferences"});
  if (owners == nullptr) return false;
  for (const auto& ref : owners->as_array()) {
    if (ref.at("controller") == json::value(true) && string_at(ref, {"kind"}) == "WorkloadRun" &&
        string_at(ref, {"uid"}) == string_at(owner, {"metadata", "uid"})) {
      return true;
    }
  }
  return false;
}

void expect_contract(const ReconcileCase& input, const nvcre::k8s::ReconcilePlan& plan) {
  const auto& actions = plan.actions;
  const bool reads = std::any_of(actions.begin(), actions.end(),
                                 [](const auto& a) { return a.verb == ActionVerb::LiveGet; });
  if (reads) {
    EXPECT_EQ(actions.size(), 1U) << "a pass that reads live plans nothing else";
    EXPECT_TRUE(plan.events.empty());
  }
  for (const auto& action : actions) {
    EXPECT_NE(action.verb, ActionVerb::MergePatch) << "WorkloadRun has no finalizer";
    if (action.verb == ActionVerb::MergePatchStatus) {
      EXPECT_EQ(string_at(action.body, {"metadata", "resourceVersion"}),
                string_at(*input.object, {"metadata", "resourceVersion"}));
    }
    if (action.verb == ActionVerb::Create) {
      EXPECT_EQ(action.target.name, string_at(*input.object, {"metadata", "name"}))
          << "the Workflow is named like the run";
      EXPECT_EQ(string_at(action.body, {"metadata", "labels", "nvcre.nvidia.com/workload-run"}),
                action.target.name);
      EXPECT_TRUE(controlled_by(action.body, *input.object));
    }
  }
}

class WorkloadRunReconcile : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(WorkloadRunReconcile, Plan) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto input = nvcre::testing::load_reconcile_case(golden_case);
    const auto plan = nvcre::workloadrun::reconcile_workloadrun(input.context()).plan;
    expect_contract(input, plan);
    return nvcre::testing::plan_to_yaml(plan);
  });
}

NVCRE_GOLDEN_SUITE(WorkloadRunReconcile, "workloadrun-reconcile");
