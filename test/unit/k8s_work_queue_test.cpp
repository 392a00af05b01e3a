#include "k8s/work_queue.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace nvcre::k8s {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const SteadyTime kT0{};

// Hands out everything ready, without calling done().
std::vector<std::string> drain(WorkQueue& queue) {
  std::vector<std::string> keys;
  while (auto key = queue.get()) keys.push_back(*key);
  return keys;
}

TEST(K8sWorkQueue, AddDeduplicatesAndKeepsFifoOrder) {
  WorkQueue queue;
  queue.add("ns/b");
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/c");
  queue.add("ns/a");
  EXPECT_EQ(queue.len(), 3u);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"ns/b", "ns/a", "ns/c"}));
  EXPECT_EQ(queue.len(), 0u);
  EXPECT_FALSE(queue.get());
}

TEST(K8sWorkQueue, KeyAddedWhileProcessingIsHandedOutOnlyAfterDone) {
  WorkQueue queue;
  queue.add("ns/a");
  ASSERT_EQ(queue.get(), "ns/a");
  EXPECT_TRUE(queue.is_processing("ns/a"));
  queue.add("ns/a");
  queue.add("ns/a");  // many events while held collapse into one more run
  EXPECT_TRUE(queue.is_dirty("ns/a"));
  EXPECT_EQ(queue.len(), 0u);
  EXPECT_FALSE(queue.get()) << "a held key must never be handed out twice at once";
  queue.done("ns/a");
  EXPECT_EQ(queue.len(), 1u);
  ASSERT_EQ(queue.get(), "ns/a");
  queue.done("ns/a");
  EXPECT_FALSE(queue.get()) << "not dirty at done: not re-queued";
  EXPECT_EQ(queue.num_processing(), 0u);
}

TEST(K8sWorkQueue, DirtyKeyGoesToTheBackAtDone) {
  WorkQueue queue;
  queue.add("a");
  ASSERT_EQ(queue.get(), "a");
  queue.add("a");
  queue.add("b");
  queue.done("a");
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"b", "a"}));
}

TEST(K8sWorkQueue, DoneOfAKeyNotHeldIsHarmless) {
  WorkQueue queue;
  queue.done("ghost");
  queue.add("a");
  queue.done("a");  // queued, not held: must stay queued exactly once
  EXPECT_EQ(queue.len(), 1u);
  ASSERT_EQ(queue.get(), "a");
  queue.done("a");
  queue.done("a");
  EXPECT_EQ(queue.len(), 0u);
  EXPECT_EQ(queue.num_processing(), 0u);
}

TEST(K8sWorkQueue, AddAfterBecomesReadyAtItsTimeAndEarliestWins) {
  WorkQueue queue;
  queue.add_after("late", seconds(10), kT0);
  queue.add_after("early", seconds(2), kT0);
  queue.add_after("late", seconds(30), kT0);  // later request ignored
  EXPECT_EQ(queue.num_waiting(), 2u);
  EXPECT_EQ(queue.next_ready_at(), kT0 + seconds(2));
  EXPECT_FALSE(queue.get(kT0 + milliseconds(1999)));
  EXPECT_EQ(queue.get(kT0 + seconds(2)), "early");        // ready exactly at now + delay
  queue.add_after("late", seconds(5), kT0 + seconds(2));  // earlier than 10 s: replaces
  EXPECT_EQ(queue.next_ready_at(), kT0 + seconds(7));
  EXPECT_FALSE(queue.get(kT0 + seconds(6)));
  EXPECT_EQ(queue.get(kT0 + seconds(7)), "late");
  EXPECT_EQ(queue.num_waiting(), 0u);
  EXPECT_FALSE(queue.next_ready_at());
}

TEST(K8sWorkQueue, DelayedKeysFireInReadyTimeOrderThenArrival) {
  WorkQueue queue;
  queue.add_after("c", seconds(3), kT0);
  queue.add_after("a", seconds(1), kT0);
  queue.add_after("b2", seconds(2), kT0);
  queue.add_after("b1", seconds(2), kT0);
  queue.add("now");
  queue.advance(kT0 + seconds(5));
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"now", "a", "b2", "b1", "c"}));
}

TEST(K8sWorkQueue, NonPositiveDelayAddsImmediatelyAndFiredKeysDeduplicate) {
  WorkQueue queue;
  queue.add_after("a", Nanos::zero(), kT0);
  queue.add_after("b", -seconds(1), kT0);
  EXPECT_EQ(queue.len(), 2u);
  queue.add_after("a", seconds(1), kT0);  // already queued: firing later must not duplicate it
  queue.advance(kT0 + seconds(1));
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"a", "b"}));
}

TEST(K8sWorkQueue, DelayedKeyFiringWhileHeldRunsAgainAfterDone) {
  WorkQueue queue;
  queue.add("a");
  ASSERT_EQ(queue.get(kT0), "a");
  queue.add_after("a", seconds(1), kT0);
  EXPECT_FALSE(queue.get(kT0 + seconds(1)));
  queue.done("a");
  EXPECT_EQ(queue.get(kT0 + seconds(1)), "a");
}

TEST(K8sWorkQueue, AddRateLimitedBacksOffExponentiallyUntilForget) {
  WorkQueue queue;
  SteadyTime now = kT0;
  const std::vector<Nanos> expected = {milliseconds(5), milliseconds(10), milliseconds(20),
                                       milliseconds(40)};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    queue.add_rate_limited("ns/a", now);
    EXPECT_EQ(queue.next_ready_at(), now + expected[i]) << i;
    EXPECT_FALSE(queue.get(now + expected[i] - Nanos(1)));
    now += expected[i];
    ASSERT_EQ(queue.get(now), "ns/a");
    queue.done("ns/a");
  }
  EXPECT_EQ(queue.num_requeues("ns/a"), 4);
  queue.forget("ns/a");
  EXPECT_EQ(queue.num_requeues("ns/a"), 0);
  queue.add_rate_limited("ns/a", now);
  EXPECT_EQ(queue.next_ready_at(), now + milliseconds(5));
}

TEST(K8sWorkQueue, GlobalBucketDelaysRetriesAfterBurst) {
  WorkQueue queue;
  for (int i = 0; i < 100; ++i) queue.add_rate_limited("k" + std::to_string(i), kT0);
  EXPECT_EQ(queue.next_ready_at(), kT0 + milliseconds(5));
  queue.advance(kT0 + milliseconds(5));
  EXPECT_EQ(queue.len(), 100u);
  queue.add_rate_limited("k100", kT0);  // bucket exhausted: 100 ms, not 5 ms
  EXPECT_EQ(queue.next_ready_at(), kT0 + milliseconds(100));
}

TEST(K8sWorkQueue, CustomLimiterIsUsed) {
  WorkQueue queue(std::make_unique<ItemExponentialFailureRateLimiter>(seconds(1), seconds(3)));
  queue.add_rate_limited("a", kT0);
  EXPECT_EQ(queue.next_ready_at(), kT0 + seconds(1));
  queue.add_rate_limited("b", kT0);
  queue.add_rate_limited("b", kT0);
  queue.add_rate_limited("b", kT0);
  EXPECT_EQ(queue.num_requeues("b"), 3);
  queue.advance(kT0 + seconds(1));
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"a", "b"}));  // b kept its earliest (1 s) time
}

TEST(K8sWorkQueue, ShutdownHandsOutQueuedKeysThenNothing) {
  WorkQueue queue;
  queue.add("a");
  queue.add("b");
  queue.add("held");
  queue.add_after("parked", seconds(1), kT0);
  ASSERT_EQ(queue.get(), "a");
  queue.add("a");  // dirty while held, accepted before shutdown
  queue.shut_down();
  EXPECT_TRUE(queue.shutting_down());
  EXPECT_EQ(queue.num_waiting(), 0u) << "parked keys are dropped";
  queue.add("new");
  queue.add_after("new", seconds(1), kT0);
  queue.add_rate_limited("new", kT0);
  EXPECT_EQ(queue.len(), 2u) << "adds after shutdown are ignored";
  EXPECT_FALSE(queue.drained());
  EXPECT_EQ(queue.get(kT0 + seconds(5)), "b");
  EXPECT_EQ(queue.get(), "held");
  queue.done("b");
  queue.done("held");
  queue.done("a");  // was dirty: handed out once more
  EXPECT_EQ(queue.get(), "a");
  EXPECT_FALSE(queue.drained()) << "a is still held";
  queue.done("a");
  EXPECT_FALSE(queue.get());
  EXPECT_TRUE(queue.drained());
}

}  // namespace
}  // namespace nvcre::k8s
