// The Certification reconcile as a pure function.
//   certification-reconcile/<case>/input.yaml: now, object, cache, live, outcome (test/support/
//   reconcile_case.hpp); expected.yaml: the plan.
// Besides the golden plan, every case is held to the contract's invariants (LiveGets come alone,
// a finalizer add ends the pass, status writes are conditional, created Workflows are controlled
// by the Certification), and one test drives a whole two-category run pass by pass the way the
// actor shell does, starting from the `lifecycle-finalizer-first` case.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "catalog/catalog.hpp"
#include "jsonkit/merge_patch.hpp"
#include "certification/reconciler.hpp"
#include "k8s/reconcile_plan.hpp"
#include "test/support/golden_inputs.hpp"
#include "test/support/reconcile_case.hpp"
#include "jsonkit/named_merge.hpp"

namespace json = boost::json;
using nvcre::k8s::ActionVerb;
using nvcre::testing::find;
using nvcre::testing::GoldenCase;
using nvcre::testing::ReconcileCase;
using nvcre::testing::string_at;

namespace {

// The builds the reconcile asks for are answered synchronously by the same pure stages the
// controller's build services run, so the plan is the one the manager carries out.
nvcre::k8s::ReconcilePlan plan_for(const ReconcileCase& input) {
  return nvcre::certification::reconcile_certification_answering_builds(
      input.context(), nvcre::catalog::Catalog::builtin());
}

bool controlled_by(const json::value& child, const json::value& owner) {
  const auto* owners = find(child, {"metadata", "ownerReferences"});
  if (owners == nullptr) return false;
  for (const auto& ref : owners->as_array()) {
    if (ref.at("controller") == json::value(true) &&
        ref.at("blockOwnerDeletion") == json::value(true) &&
        string_at(ref, {"uid"}) == string_at(owner, {"metadata", "uid"}) &&
        string_at(ref, {"kind"}) == string_at(owner, {"kind"})) {
      return true;
    }
  }
  return false;
}

// The reconcile-plan contract, whatever the case.
void expect_contract(const ReconcileCase& input, const nvcre::k8s::ReconcilePlan& plan) {
  const auto& actions = plan.actions;
  const bool reads = std::any_of(actions.begin(), actions.end(),
                                 [](const auto& a) { return a.verb == ActionVerb::LiveGet; });
  if (reads) {
    EXPECT_TRUE(std::all_of(actions.begin(), actions.end(), [](const auto& a) {
      return a.verb == ActionVerb::LiveGet;
    })) << "a pass that reads live plans nothing else";
    EXPECT_TRUE(plan.events.empty());
  }
  for (const auto& action : actions) {
    if (action.verb == ActionVerb::MergePatch) {
      EXPECT_EQ(actions.size(), 1U) << "a finalizer add ends the pass";
    }
    if (action.verb == ActionVerb::MergePatch || action.verb == ActionVerb::MergePatchStatus) {
      EXPECT_EQ(string_at(action.body, {"metadata", "resourceVersion"}),
                string_at(*input.object, {"metadata", "resourceVersion"}))
          << "writes are conditional on the observed resourceVersion";
    }
    if (action.verb == ActionVerb::Create) {
      EXPECT_EQ(action.target.kind, "Workflow");
      EXPECT_EQ(string_at(action.body, {"metadata", "labels", "app.kubernetes.io/managed-by"}),
                "nvcre");
      EXPECT_EQ(string_at(action.body, {"metadata", "labels", "nvcre.nvidia.com/certification"}),
                string_at(*input.object, {"metadata", "name"}));
      EXPECT_TRUE(controlled_by(action.body, *input.object))
          << "a created Workflow is controlled by its Certification";
    }
  }
}

class CertificationReconcile : public ::testing::TestWithParam<GoldenCase> {};

// A miniature actor shell: applies a plan's writes to the primary object and the cache (merge
// patches, creates with a server-assigned uid, resourceVersion preconditions) and keeps the events.
class Shell {
 public:
  explicit Shell(ReconcileCase start) : state_(std::move(start)) {}

  // Runs passes until one plans no write; returns false if that takes unreasonably long.
  bool run_until_idle() {
    for (int pass = 0; pass < 20; ++pass) {
      const auto plan = plan_for(state_);
      EXPECT_TRUE(plan.error.empty()) << plan.error;
      if (plan.actions.empty()) return true;
      for (const auto& action : plan.actions) apply(action);
      for (const auto& event : plan.events) events_.push_back(event.type + "/" + event.reason);
    }
    return false;
  }

  std::vector<std::string> workflows() const {
    std::vector<std::string> names;
    for (const auto* workflow : state_.cache.list("nvcre.nvidia.com/v1alpha1", "Workflow", "")) {
      names.push_back(string_at(*workflow, {"metadata", "name"}));
    }
    return names;
  }

  void finish_workflow(const std::string& name, const std::string& type) {
    const auto& ns = string_at(*state_.object, {"metadata", "namespace"});
    json::value workflow = *state_.cache.get({"nvcre.nvidia.com/v1alpha1", "Workflow", ns, name});
    workflow.as_object()["status"] = json::object{
        {"conditions", json::array{json::object{{"type", type},
                                                {"status", "True"},
                                                {"reason", "Done"},
                                                {"message", ""},
                                                {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
    state_.cache.upsert(std::move(workflow));
  }

  const json::value& primary() const { return *state_.object; }
  const std::vector<std::string>& events() const { return events_; }

 private:
  void apply(const nvcre::k8s::Action& action) {
    json::value& primary = *state_.object;
    switch (action.verb) {
      case ActionVerb::MergePatch:
      case ActionVerb::MergePatchStatus: {
        ASSERT_EQ(string_at(action.body, {"metadata", "resourceVersion"}),
                  string_at(primary, {"metadata", "resourceVersion"}));
        primary = nvcre::jsonkit::merge_patch(primary, action.body);
        primary.as_object()["metadata"].as_object()["resourceVersion"] = std::to_string(++version_);
        break;
      }
      case ActionVerb::Create: {
        json::value created = action.body;
        created.as_object()["metadata"].as_object()["uid"] = "uid-" + std::to_string(++version_);
        state_.cache.upsert(std::move(created));
        break;
      }
      default:
        FAIL() << "unexpected " << nvcre::k8s::to_string(action.verb) << " in a plain run";
    }
  }

  ReconcileCase state_;
  std::vector<std::string> events_;
  int version_ = 5000;
};

}  // namespace

TEST_P(CertificationReconcile, Plan) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto input = nvcre::testing::load_reconcile_case(golden_case);
    const auto plan = plan_for(input);
    expect_contract(input, plan);
    return nvcre::testing::plan_to_yaml(plan);
  });
}

NVCRE_GOLDEN_SUITE(CertificationReconcile, "certification-reconcile");

// Two categories over two H100 nodes, pass by pass: the first Workflow fails, the second still
// runs and succeeds, and the verdict is Failed. Only the Workflow results are injected.
TEST(CertificationLifecycle, FailedCategoryDoesNotStopTheNextOne) {
  const auto cases = nvcre::testing::load_cases("certification-reconcile");
  auto start = std::find_if(cases.begin(), cases.end(), [](const GoldenCase& c) {
    return c.name == "lifecycle-finalizer-first";
  });
  ASSERT_NE(start, cases.end());
  Shell shell(nvcre::testing::load_reconcile_case(*start));

  ASSERT_TRUE(shell.run_until_idle());
  ASSERT_EQ(shell.workflows().size(), 1U) << "one Workflow at a time";
  shell.finish_workflow(shell.workflows()[0], "Failed");
  ASSERT_TRUE(shell.run_until_idle());
  ASSERT_EQ(shell.workflows().size(), 2U) << "the second category starts after the first failed";
  const auto& categories = find(shell.primary(), {"status", "categoryStatuses"})->as_array();
  ASSERT_EQ(categories.size(), 2U);
  shell.finish_workflow(string_at(categories[1], {"workflowRef", "name"}), "Succeeded");
  ASSERT_TRUE(shell.run_until_idle());

  const auto& final_categories = find(shell.primary(), {"status", "categoryStatuses"})->as_array();
  EXPECT_EQ(string_at(final_categories[0], {"status"}), "Failed");
  EXPECT_EQ(string_at(final_categories[1], {"status"}), "Succeeded");
  // Transition events only where the True condition changed: InProgress once, then Failed.
  EXPECT_EQ(shell.events(),
            (std::vector<std::string>{"Normal/WorkflowCreated", "Warning/WorkflowFailed"}));
}
