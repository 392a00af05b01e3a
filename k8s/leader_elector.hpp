#pragma once
// The blocking driver of the leader-election state machine (k8s/leader_election.hpp): run() reads
// the Lease with a RestClient, performs the writes the machine asks for, sleeps the retry period
// (jittered while a candidate, like client-go's JitterUntil) and calls the callbacks, all on the
// caller's thread, until stop().
//
// Callbacks run on run()'s thread and must return promptly (post a message, flip a flag): a
// callback that blocks delays renewals. on_stopped_leading runs BEFORE the releasing write, so the
// work guarded by the lease has stopped by the time a standby can take over.
//
// The RestClient's per-request timeout should be well below the renew deadline: stop() does not
// cut a request short (RestClient::shutdown() does), so a hung renewal delays on_stopped_leading.
// is_leader() does not depend on that: it also checks the renew deadline against the clock, so it
// turns false on time even then.
#include "k8s/leader_election.hpp"
#include "k8s/rest_client.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <string>

namespace nvcre::k8s {

struct LeaderElectorCallbacks {
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)>
      on_new_leader;  // a holder other than the last seen
  // A failed read or write of the Lease (the election carries on). Messages name the verb, the
  // Lease and the server's reason; they never carry credentials.
  std::function<void(const std::string& message)> on_error;
};

struct LeaderElectorOptions {
  LeaderElectionConfig election;
  LeaderElectorCallbacks callbacks;
  bool release_on_stop = true;     // client-go ReleaseOnCancel: stop() hands the Lease over at once
  bool rejoin_after_loss = false;  // false: run() returns once leadership is lost (client-go Run)
  double jitter_factor = 1.2;      // a candidate waits retry_period * [1, 1 + jitter_factor)
  std::uint64_t seed = 0;          // jitter RNG; 0: random
  // Test seams. The clock must be thread-safe (is_leader() reads it from any thread). A custom
  // sleep cannot be interrupted: stop() then takes effect when it returns.
  std::function<ElectionTime()> clock;
  std::function<void(std::chrono::nanoseconds)> sleep;
};

// How stop() ends run(): Release clears the Lease (when release_on_stop and we hold it); Abandon
// leaves it untouched, as a crashed process would, so a standby waits out the lease duration.
enum class StopMode { Release, Abandon };

class LeaderElector {
 public:
  // Throws std::invalid_argument for an invalid election config. `client` must outlive run().
  LeaderElector(RestClient& client, LeaderElectorOptions options);
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Blocks: campaigns, leads and renews until stop(), or until leadership is lost unless
  // rejoin_after_loss. Call once. Exceptions thrown by callbacks propagate.
  void run();
  // Thread-safe, returns at once; run() finishes (and releases) on its own thread.
  void stop(StopMode mode = StopMode::Release);

  // Leading and still inside the renew deadline. Thread-safe.
  bool is_leader() const;
  // The holder last observed ("" when none). Thread-safe.
  std::string leader() const;

 private:
  bool attempt();  // one read (+ write); true when leadership was lost
  bool perform(const LeaseWrite& write);
  bool apply(const ElectionStep& step);  // publishes state, runs callbacks; true on StoppedLeading
  void finish();
  void sleep_for(std::chrono::nanoseconds wait);
  bool stopping() const;
  ElectionTime now() const;
  void report_error(const std::string& what, const std::exception& error) const;

  RestClient& client_;
  LeaderElectorOptions options_;
  LeaderElection machine_;
  std::mt19937_64 rng_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_requested_ = false;
  StopMode stop_mode_ = StopMode::Release;
  std::string leader_;

  std::atomic<bool> leading_{false};
  std::atomic<std::int64_t> leading_until_ns_{0};  // steady_clock ticks since its epoch
};

}  // namespace nvcre::k8s
