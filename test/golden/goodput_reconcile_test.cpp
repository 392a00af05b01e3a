// Golden suite `goodput-reconcile` for measurement/goodput_reconciler.hpp, in the format of
// test/support/measurement_reconcile_harness.hpp.
#include "measurement/goodput_reconciler.hpp"
#include "test/support/measurement_reconcile_harness.hpp"

#include "jsonkit/merge_patch.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

namespace {

using nvcre::testing::GoldenCase;
namespace json = boost::json;

class GoodputReconcile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoodputReconcile, Plans) {
  nvcre::testing::measurement_harness::check_case(
      GetParam(), nvcre::measurement::reconcile_goodput_measurement);
}

NVCRE_GOLDEN_SUITE(GoodputReconcile, "goodput-reconcile");

// The reference's frozen-after-complete check (ADR-072): the terminal write of a measurement whose
// Job ended before it was ever sampled derives from the log and the Job's terminal transition
// only. Strip the Complete condition from what was written (a stale cache or a restart re-entering
// the terminal path) and the next pass must write the same status again, condition transition times
// aside (re-adding a condition moves them).
json::value frozen_view(json::value status) {
  auto& conditions = status.as_object()["conditions"].as_array();
  for (auto& c : conditions) c.as_object().erase("lastTransitionTime");
  std::sort(conditions.begin(), conditions.end(), [](const json::value& a, const json::value& b) {
    return a.at("type").as_string() < b.at("type").as_string();
  });
  return status;
}

json::value written_status(const nvcre::reconcile::Result& result) {
  for (const auto& action : result.plan.actions) {
    if (action.verb == nvcre::k8s::ActionVerb::MergePatchStatus) return action.body.at("status");
  }
  ADD_FAILURE() << "no status write";
  return json::object{};
}

TEST(GoodputTerminalFreeze, ATerminalReentryRewritesTheSameStatus) {
  for (const auto& golden_case : nvcre::testing::load_cases("goodput-reconcile")) {
    if (golden_case.name != "succeeded-first-reconcile-after-job-ended") continue;
    using nvcre::testing::measurement_harness::run;
    const nvcre::testing::ReconcileCase first_case =
        nvcre::testing::load_reconcile_case(golden_case);
    const auto first =
        written_status(run(nvcre::measurement::reconcile_goodput_measurement, first_case));
    nvcre::testing::ReconcileCase again = nvcre::testing::load_reconcile_case(golden_case);
    json::value stored = nvcre::jsonkit::merge_patch(json::object{}, first);
    auto& conditions = stored.as_object()["conditions"].as_array();
    conditions.erase(
        std::remove_if(conditions.begin(), conditions.end(),
                       [](const json::value& c) { return c.at("type").as_string() == "Complete"; }),
        conditions.end());
    again.object->as_object()["status"] = stored;
    again.now += std::chrono::minutes(7);  // later wall clock: must not matter
    const auto second =
        written_status(run(nvcre::measurement::reconcile_goodput_measurement, again));
    EXPECT_EQ(frozen_view(first), frozen_view(second));
    return;
  }
  FAIL() << "case goodput-reconcile/succeeded-first-reconcile-after-job-ended is missing";
}

}  // namespace
