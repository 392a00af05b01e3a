// Golden suite `workflow-reconcile` for workflow/workflow_reconciler.hpp. input.yaml is the
// reconcile-case format (test/support/reconcile_case.hpp); expected.yaml is plan_to_json(plan).
//
// Every case is also held to the plan contract the Workflow reconciler promises: a plan that waits
// for live reads does nothing else, there is at most one status write per plan and one Create
// besides a launch's Jobs and job-scoped copies, the
// status write comes last among the writes and is conditional on the version it was computed from,
// and the reconcile is pure (the same inputs give the same plan).
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"
#include "test/support/reconcile_case.hpp"
#include "workflow/workflow_reconciler.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
namespace wf = nvcre::workflow;
using nvcre::testing::GoldenCase;
using nvcre::testing::ReconcileCase;

k8s::ReconcilePlan run(const ReconcileCase& c) { return wf::reconcile_workflow(c.context()).plan; }

std::size_t count_verb(const k8s::ReconcilePlan& plan, k8s::ActionVerb verb) {
  return static_cast<std::size_t>(
      std::count_if(plan.actions.begin(), plan.actions.end(),
                    [&](const k8s::Action& a) { return a.verb == verb; }));
}

void check_invariants(const ReconcileCase& c, const k8s::ReconcilePlan& plan) {
  if (!c.object) {
    EXPECT_TRUE(plan.actions.empty()) << "nothing to act on";
    return;
  }
  if (count_verb(plan, k8s::ActionVerb::LiveGet) > 0) {
    EXPECT_EQ(count_verb(plan, k8s::ActionVerb::LiveGet), plan.actions.size())
        << "a plan waiting for reads writes";
    EXPECT_TRUE(plan.events.empty() && !plan.requeue_after && plan.error.empty())
        << "a waiting plan decides";
  }
  // Launches batch: each group's Job and the job-scoped copies the plan's status write records;
  // any other create is one per pass.
  std::set<std::string> job_scoped;
  for (const auto& action : plan.actions) {
    if (action.verb != k8s::ActionVerb::MergePatchStatus) continue;
    const auto* refs = nvcre::jsonkit::value_at(action.body, {"status", "dependencyRefs"});
    if (refs == nullptr || !refs->is_array()) continue;
    for (const auto& ref : refs->as_array())
      if (nvcre::jsonkit::string_at(ref, {"scope"}) == "job")
        job_scoped.insert(nvcre::jsonkit::string_at(ref, {"name"}));
  }
  const auto other_creates =
      std::count_if(plan.actions.begin(), plan.actions.end(), [&](const k8s::Action& a) {
        const bool launch = a.target.kind == "Job" || job_scoped.contains(a.target.name);
        return a.verb == k8s::ActionVerb::Create && !launch;
      });
  EXPECT_LE(other_creates, 1) << "one create per pass outside launches";
  EXPECT_LE(count_verb(plan, k8s::ActionVerb::MergePatchStatus), 1u) << "one status write per pass";
  for (std::size_t i = 0; i < plan.actions.size(); ++i) {
    const auto& action = plan.actions[i];
    if (action.verb != k8s::ActionVerb::MergePatchStatus) continue;
    EXPECT_EQ(i + 1, plan.actions.size())
        << "the status write records what the actions before it did";
    EXPECT_EQ(action.body.at("metadata").at("resourceVersion"),
              c.object->at("metadata").at("resourceVersion"))
        << "status writes must be conditional on the version they were computed from";
  }
  EXPECT_EQ(k8s::plan_to_json(run(c)), k8s::plan_to_json(plan)) << "not pure";
}

class WorkflowReconcile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(WorkflowReconcile, Plans) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const ReconcileCase c = nvcre::testing::load_reconcile_case(golden_case);
    const auto plan = run(c);
    check_invariants(c, plan);
    return nvcre::testing::plan_to_yaml(plan);
  });
}

NVCRE_GOLDEN_SUITE(WorkflowReconcile, "workflow-reconcile");

}  // namespace
