// A controller ends a key's reconciler once it has been idle past idle_reap and keeps its memo
// until memo_kept; a busy key keeps both.
#include "k8s/idle_reap.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using nvcre::k8s::decide_reap;

const nvcre::k8s::ReapLimits kLimits{1s, 60s};

TEST(IdleReap, ABusyKeyKeepsItsActorAndItsMemo) {
  const auto decision = decide_reap({true, true, true, 10min}, kLimits);
  EXPECT_FALSE(decision.end_actor);
  EXPECT_FALSE(decision.forget);
}

TEST(IdleReap, ARecentlyUsedActorStays) {
  const auto decision = decide_reap({false, true, false, 500ms}, kLimits);
  EXPECT_FALSE(decision.end_actor);
  EXPECT_FALSE(decision.forget);
}

TEST(IdleReap, AnIdleActorEndsAndItsMemoStaysUntilMemoKept) {
  auto decision = decide_reap({false, true, true, 2s}, kLimits);
  EXPECT_TRUE(decision.end_actor);
  EXPECT_FALSE(decision.forget);
  decision = decide_reap({false, false, true, 30s}, kLimits);
  EXPECT_FALSE(decision.end_actor);
  EXPECT_FALSE(decision.forget);
  decision = decide_reap({false, false, true, 61s}, kLimits);
  EXPECT_TRUE(decision.forget);
}

TEST(IdleReap, WithoutAMemoTheSlotGoesWithItsActor) {
  const auto decision = decide_reap({false, true, false, 2s}, kLimits);
  EXPECT_TRUE(decision.end_actor);
  EXPECT_TRUE(decision.forget);
}

}  // namespace
