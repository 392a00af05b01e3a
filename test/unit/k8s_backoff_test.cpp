#include "k8s/backoff.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace nvcre::k8s {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;

const std::chrono::steady_clock::time_point kT0{};

// The un-jittered bases of client-go's reflector backoff: 800ms doubling, capped at 30s.
const std::vector<nanoseconds> kBases = {
    milliseconds(800),  milliseconds(1600),  milliseconds(3200),
    milliseconds(6400), milliseconds(12800), milliseconds(25600),
    seconds(30),        seconds(30),         seconds(30)};

TEST(K8sBackoff, JitteredSequenceStaysWithinBaseAndTwiceBase) {
  ExponentialBackoff backoff({}, 42);
  auto now = kT0;
  for (std::size_t i = 0; i < kBases.size(); ++i) {
    const nanoseconds wait = backoff.next(now);
    EXPECT_GE(wait, kBases[i]) << "attempt " << i;
    EXPECT_LT(wait, 2 * kBases[i]) << "attempt " << i;
    now += wait;  // retry right when told: well inside the 2 min reset window
  }
  EXPECT_EQ(backoff.current_base(), seconds(30));
}

TEST(K8sBackoff, WithoutJitterTheSequenceIsExact) {
  BackoffConfig config;
  config.jitter = 0.0;
  ExponentialBackoff backoff(config, 7);
  auto now = kT0;
  for (const nanoseconds base : kBases) {
    EXPECT_EQ(backoff.next(now), base);
    now += base;
  }
}

TEST(K8sBackoff, SameSeedSameSequenceDifferentSeedDifferentSequence) {
  ExponentialBackoff a({}, 1234), b({}, 1234), c({}, 99);
  bool any_difference = false;
  for (int i = 0; i < 8; ++i) {
    const auto now = kT0 + seconds(i);
    const nanoseconds wait_a = a.next(now);
    EXPECT_EQ(wait_a, b.next(now));
    any_difference = any_difference || wait_a != c.next(now);
  }
  EXPECT_TRUE(any_difference);
}

TEST(K8sBackoff, ResetsAfterTwoMinutesWithoutFailure) {
  BackoffConfig config;
  config.jitter = 0.0;
  ExponentialBackoff backoff(config, 0);
  EXPECT_EQ(backoff.next(kT0), milliseconds(800));
  EXPECT_EQ(backoff.next(kT0 + seconds(1)), milliseconds(1600));
  // Exactly 2 minutes since the last backoff is not "more than" 2 minutes: keep growing.
  EXPECT_EQ(backoff.next(kT0 + seconds(1) + minutes(2)), milliseconds(3200));
  // Healthy for longer than 2 minutes: start over.
  EXPECT_EQ(backoff.next(kT0 + seconds(2) + minutes(4)), milliseconds(800));
  EXPECT_EQ(backoff.next(kT0 + seconds(3) + minutes(4)), milliseconds(1600));
  backoff.reset();
  EXPECT_EQ(backoff.next(kT0 + seconds(4) + minutes(4)), milliseconds(800));
}

TEST(K8sBackoff, JitterIsSpreadOverTheWholeRange) {
  // With a fixed seed, 200 capped waits must land in [30s, 60s) and use both halves of it:
  // a constant or half-range jitter would fail this.
  ExponentialBackoff backoff({}, 5);
  auto now = kT0;
  for (int i = 0; i < 6; ++i) now += backoff.next(now);
  int low_half = 0, high_half = 0;
  for (int i = 0; i < 200; ++i) {
    const nanoseconds wait = backoff.next(now);
    ASSERT_GE(wait, seconds(30));
    ASSERT_LT(wait, seconds(60));
    (wait < seconds(45) ? low_half : high_half)++;
    now += wait;
  }
  EXPECT_GT(low_half, 50);
  EXPECT_GT(high_half, 50);
}

TEST(K8sBackoff, UnitIntervalIsHalfOpen) {
  std::mt19937_64 engine(3);
  for (int i = 0; i < 10000; ++i) {
    const double u = unit_interval(engine);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace nvcre::k8s
