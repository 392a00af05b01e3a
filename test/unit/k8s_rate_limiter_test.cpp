#include "k8s/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace nvcre::k8s {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

const SteadyTime kT0{};  // an arbitrary steady-clock origin; only differences matter

// 1994-11-06T08:49:37Z, the RFC's example date.
WallTime rfc_example_time() {
  using namespace std::chrono;
  return WallTime(sys_days(year_month_day{year{1994}, month{11}, day{6}})) + hours(8) +
         minutes(49) + seconds(37);
}

TEST(K8sRateLimiter, ItemExponentialDoublesFromFiveMillisecondsToTheCap) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  Nanos expected = milliseconds(5);
  for (int failure = 0; failure < 18; ++failure) {
    EXPECT_EQ(limiter.when("ns/a", kT0), expected) << "failure " << failure;
    expected *= 2;
  }
  // 5ms * 2^17 = 655.36s is the last uncapped step; 5ms * 2^18 = 1310.72s is capped.
  EXPECT_EQ(limiter.num_requeues("ns/a"), 18);
  EXPECT_EQ(limiter.when("ns/a", kT0), seconds(1000));
  for (int i = 0; i < 100; ++i) limiter.when("ns/a", kT0);  // no overflow far past the cap
  EXPECT_EQ(limiter.when("ns/a", kT0), seconds(1000));
  EXPECT_EQ(limiter.num_requeues("ns/a"), 120);
}

TEST(K8sRateLimiter, ItemExponentialIsPerKeyAndForgetResets) {
  ItemExponentialFailureRateLimiter limiter(milliseconds(5), seconds(1000));
  EXPECT_EQ(limiter.when("a", kT0), milliseconds(5));
  EXPECT_EQ(limiter.when("a", kT0), milliseconds(10));
  EXPECT_EQ(limiter.when("b", kT0), milliseconds(5));
  EXPECT_EQ(limiter.num_requeues("a"), 2);
  EXPECT_EQ(limiter.num_requeues("b"), 1);
  limiter.forget("a");
  EXPECT_EQ(limiter.num_requeues("a"), 0);
  EXPECT_EQ(limiter.when("a", kT0), milliseconds(5));
  EXPECT_EQ(limiter.when("b", kT0), milliseconds(10));
  EXPECT_EQ(limiter.num_requeues("never-seen"), 0);
}

TEST(K8sRateLimiter, TokenBucketAllowsBurstThenSpacesByInterval) {
  TokenBucket bucket(10.0, 100);
  EXPECT_EQ(bucket.interval(), milliseconds(100));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(bucket.reserve(kT0), Nanos::zero()) << i;
  // Exhausted: reservations queue up one interval apart.
  EXPECT_EQ(bucket.reserve(kT0), milliseconds(100));
  EXPECT_EQ(bucket.reserve(kT0), milliseconds(200));
  EXPECT_EQ(bucket.reserve(kT0), milliseconds(300));
  // 250 ms later 2.5 tokens were earned against a debt of 3: the next one waits 150 ms.
  EXPECT_EQ(bucket.reserve(kT0 + milliseconds(250)), milliseconds(150));
}

TEST(K8sRateLimiter, TokenBucketRefillsOnlyUpToBurst) {
  TokenBucket bucket(10.0, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.reserve(kT0), Nanos::zero());
  EXPECT_EQ(bucket.reserve(kT0), milliseconds(100));
  // A long idle period refills 3 tokens, not 36000.
  const SteadyTime later = kT0 + hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.reserve(later), Nanos::zero());
  EXPECT_EQ(bucket.reserve(later), milliseconds(100));
}

TEST(K8sRateLimiter, TokenBucketTryAcceptNeverGoesIntoDebt) {
  TokenBucket bucket(2.0, 2);
  EXPECT_TRUE(bucket.try_accept(kT0));
  EXPECT_TRUE(bucket.try_accept(kT0));
  EXPECT_FALSE(bucket.try_accept(kT0));
  EXPECT_FALSE(bucket.try_accept(kT0 + milliseconds(499)));
  EXPECT_TRUE(bucket.try_accept(kT0 + milliseconds(500)));
  EXPECT_FALSE(bucket.try_accept(kT0 + milliseconds(500)));
}

TEST(K8sRateLimiter, TokenBucketRaisesZeroBurstToOne) {
  TokenBucket bucket(1.0, 0);
  EXPECT_EQ(bucket.burst(), 1);
  EXPECT_EQ(bucket.reserve(kT0), Nanos::zero());
  EXPECT_EQ(bucket.reserve(kT0), seconds(1));
}

TEST(K8sRateLimiter, ControllerDefaultIsMaxOfExponentialAndBucket) {
  auto limiter = make_controller_rate_limiter();
  // 100 distinct keys fail at once: the bucket still has tokens, so the per-item 5 ms wins.
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter->when("key-" + std::to_string(i), kT0), milliseconds(5)) << i;
  }
  // The 101st retry finds the bucket empty: 100 ms beats 5 ms.
  EXPECT_EQ(limiter->when("key-100", kT0), milliseconds(100));
  EXPECT_EQ(limiter->when("key-101", kT0), milliseconds(200));
  // A key with many failures: its exponential delay dominates the bucket again.
  for (int i = 0; i < 9; ++i) limiter->when("hot", kT0 + hours(1));
  EXPECT_EQ(limiter->when("hot", kT0 + hours(1)), milliseconds(5 << 9));
  EXPECT_EQ(limiter->num_requeues("hot"), 10);
  limiter->forget("hot");
  EXPECT_EQ(limiter->num_requeues("hot"), 0);
}

TEST(K8sRateLimiter, ControllerLimiterIsConfigurable) {
  auto limiter = make_controller_rate_limiter({milliseconds(1), seconds(1), 1.0, 1});
  EXPECT_EQ(limiter->when("a", kT0), milliseconds(1));
  EXPECT_EQ(limiter->when("a", kT0), seconds(1));  // bucket (1 qps, burst 1) is empty
  for (int i = 0; i < 20; ++i) limiter->when("b", kT0 + hours(1) + seconds(i * 10));
  EXPECT_EQ(limiter->when("b", kT0 + hours(2)), seconds(1));  // capped at max_delay
}

TEST(K8sRateLimiter, RequestLimiterDefaultsDisablingAndRetryAfter) {
  RequestRateLimiter defaults;  // rest.Config QPS 0 -> 5 qps, burst 10
  ASSERT_TRUE(defaults.enabled());
  for (int i = 0; i < 10; ++i) ASSERT_EQ(defaults.reserve(kT0), Nanos::zero()) << i;
  EXPECT_EQ(defaults.reserve(kT0), milliseconds(200));

  RequestRateLimiter custom({50.0, 2});
  EXPECT_EQ(custom.reserve(kT0), Nanos::zero());
  EXPECT_EQ(custom.reserve(kT0), Nanos::zero());
  EXPECT_EQ(custom.reserve(kT0), milliseconds(20));

  RequestRateLimiter off = RequestRateLimiter::disabled();
  ASSERT_FALSE(off.enabled());
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(off.reserve(kT0), Nanos::zero());
  // A 429 pauses even an unlimited client; later shorter hints do not shorten the pause.
  off.pause_for_retry_after(kT0, seconds(3));
  off.pause_for_retry_after(kT0 + seconds(1), seconds(1));
  EXPECT_EQ(off.reserve(kT0 + seconds(1)), seconds(2));
  EXPECT_EQ(off.reserve(kT0 + seconds(3)), Nanos::zero());
  off.pause_for_retry_after(kT0 + seconds(3), seconds(5));
  EXPECT_EQ(off.reserve(kT0 + seconds(4)), seconds(4));
}

TEST(K8sRateLimiter, RetryAfterDeltaSeconds) {
  const WallTime now = rfc_example_time();
  EXPECT_EQ(parse_retry_after("120", now), seconds(120));
  EXPECT_EQ(parse_retry_after(" 0 ", now), Nanos::zero());
  EXPECT_EQ(parse_retry_after("99999999999999999999", now), seconds(1'000'000'000));
  EXPECT_FALSE(parse_retry_after("", now));
  EXPECT_FALSE(parse_retry_after("-5", now));
  EXPECT_FALSE(parse_retry_after("1.5", now));
  EXPECT_FALSE(parse_retry_after("10s", now));
}

TEST(K8sRateLimiter, RetryAfterHttpDateInAllThreeForms) {
  const WallTime now = rfc_example_time() - seconds(90);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", now), seconds(90));
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", now), seconds(90));
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", now), seconds(90));
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:51:07 GMT", now), seconds(180));
  // In the past: no wait.
  EXPECT_EQ(parse_retry_after("Sat, 05 Nov 1994 08:49:37 GMT", now), Nanos::zero());
  // Malformed dates.
  EXPECT_FALSE(parse_retry_after("Sun, 06 Nov 1994 08:49:37 UTC", now));
  EXPECT_FALSE(parse_retry_after("Sun, 31 Feb 1994 08:49:37 GMT", now));
  EXPECT_FALSE(parse_retry_after("Sun, 06 Nov 1994 24:00:00 GMT", now));
  EXPECT_FALSE(parse_retry_after("Sun, 6 Nov 1994 08:49:37 GMT", now));
  EXPECT_FALSE(parse_retry_after("sun, 06 nov 1994 08:49:37 GMT", now));
  EXPECT_FALSE(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT trailing", now));
}

TEST(K8sRateLimiter, RetryAfterRfc850TwoDigitYearIsNeverFarInTheFuture) {
  using namespace std::chrono;
  const WallTime in_2030 = WallTime(sys_days(year_month_day{year{2030}, month{1}, day{1}}));
  // "94" would be 2094, more than 50 years ahead of 2030, so it is 1994: in the past.
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", in_2030), Nanos::zero());
  // "30" is 2030: one day and one hour ahead.
  EXPECT_EQ(parse_retry_after("Wednesday, 02-Jan-30 01:00:00 GMT", in_2030), hours(25));
}

TEST(K8sRateLimiter, RetryAfterOnlyFor429And5xx) {
  const WallTime now = rfc_example_time();
  EXPECT_EQ(retry_after_wait(429, "7", now), seconds(7));
  EXPECT_EQ(retry_after_wait(503, "7", now), seconds(7));
  EXPECT_FALSE(retry_after_wait(429, std::nullopt, now));
  EXPECT_FALSE(retry_after_wait(409, "7", now));
  EXPECT_FALSE(retry_after_wait(200, "7", now));
  EXPECT_FALSE(retry_after_wait(429, "soon", now));
}

}  // namespace
}  // namespace nvcre::k8s
