// The exclusive condition triple and meta.SetStatusCondition semantics.
#include "api/conditions.hpp"

#include <gtest/gtest.h>

namespace nvcre::api {
namespace {

TEST(Conditions, ExclusiveSetterFlipsTheTripleAndReportsTransitions) {
  std::vector<Condition> conditions;
  auto first =
      set_exclusive_condition(conditions, kConditionInProgress, "WorkflowCreated", "m1", 1, "T1");
  EXPECT_TRUE(first.changed);
  EXPECT_EQ(first.transition_to, "InProgress");
  ASSERT_EQ(conditions.size(), 3u);
  EXPECT_EQ(find_condition(conditions, "Failed")->reason, "NotApplicable");
  EXPECT_EQ(find_condition(conditions, "Failed")->status, "False");

  auto same =
      set_exclusive_condition(conditions, kConditionInProgress, "WorkflowCreated", "m1", 1, "T2");
  EXPECT_FALSE(same.changed);
  EXPECT_FALSE(same.transition_to);

  auto message_only =
      set_exclusive_condition(conditions, kConditionInProgress, "WorkflowRunning", "m2", 1, "T3");
  EXPECT_TRUE(message_only.changed);
  EXPECT_FALSE(message_only.transition_to);
  EXPECT_EQ(find_condition(conditions, "InProgress")->lastTransitionTime,
            "T1");  // status did not flip

  auto done =
      set_exclusive_condition(conditions, kConditionFailed, "WorkflowFailed", "bad", 2, "T4");
  EXPECT_EQ(done.transition_to, "Failed");
  EXPECT_TRUE(is_terminal(conditions));
  EXPECT_EQ(find_condition(conditions, "InProgress")->lastTransitionTime, "T4");
  EXPECT_EQ(find_condition(conditions, "InProgress")->observedGeneration, 2);
  EXPECT_EQ(transition_event_type(*done.transition_to), "Warning");
  EXPECT_EQ(transition_event_type("Succeeded"), "Normal");
}

TEST(Conditions, IndependentConditionsAreLeftAlone) {
  std::vector<Condition> conditions;
  Condition validation{"ValidationFailed", "True", 1, "", "Bad", "x"};
  EXPECT_TRUE(set_condition(conditions, validation, "T1"));
  set_exclusive_condition(conditions, kConditionSucceeded, "Done", "", 1, "T2");
  EXPECT_TRUE(condition_is_true(conditions, "ValidationFailed"));
  EXPECT_EQ(conditions.size(), 4u);
}

}  // namespace
}  // namespace nvcre::api
