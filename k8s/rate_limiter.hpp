#pragma once
// Rate limiters with client-go semantics, as pure value types: every call takes `now` (steady
// clock) and returns how long the caller must wait; nothing here reads a clock or sleeps, so the
// owning actor decides how to wait and tests can drive time exactly.
//
//  - ItemExponentialFailureRateLimiter: per-key base * 2^failures, capped (workqueue retries).
//  - TokenBucket / BucketRateLimiter: a global QPS + burst bucket (x/time/rate reservations).
//  - MaxOfRateLimiter: the largest wait of several limiters (DefaultControllerRateLimiter).
//  - RequestRateLimiter: the REST client's QPS/burst (may be off) plus 429 Retry-After pauses.
//  - parse_retry_after: the Retry-After header, delta-seconds or HTTP-date.
//
// None of these types lock: each is owned by exactly one actor (or test).
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;
using Nanos = std::chrono::nanoseconds;

// The workqueue's view of a limiter (client-go workqueue.TypedRateLimiter).
class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  // How long `key` must wait before being processed again; records one more failure.
  virtual Nanos when(const std::string& key, SteadyTime now) = 0;
  // Stop tracking `key` (it succeeded): its next failure starts from the base delay again.
  virtual void forget(const std::string& key) = 0;
  // Failures recorded for `key` since the last forget.
  virtual int num_requeues(const std::string& key) const = 0;
};

// base * 2^failures, capped at `max` (client-go ItemExponentialFailureRateLimiter).
class ItemExponentialFailureRateLimiter final : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Nanos base, Nanos max);
  Nanos when(const std::string& key, SteadyTime now) override;
  void forget(const std::string& key) override;
  int num_requeues(const std::string& key) const override;

 private:
  Nanos base_;
  Nanos max_;
  // Ordered map: iteration order never leaks, but it keeps debugging output deterministic.
  std::map<std::string, int> failures_;
};

// A token bucket with reservation semantics (golang.org/x/time/rate Reserve): a request always
// takes a token, possibly one that only exists in the future, and learns how long to wait for it.
// The bucket starts full. Implemented as the equivalent "theoretical arrival time" arithmetic in
// integer nanoseconds so waits are exact (no float drift over long runs).
class TokenBucket {
 public:
  // qps > 0; burst >= 1 (smaller values are raised to 1, since a bucket that can never hold a
  // token would block forever).
  TokenBucket(double qps, int burst);
  // Takes one token; returns the wait before it may be used (0 when one was available).
  Nanos reserve(SteadyTime now);
  // Takes one token only if it is available right now (client-go flowcontrol TryAccept).
  bool try_accept(SteadyTime now);
  Nanos interval() const { return interval_; }
  int burst() const { return burst_; }

 private:
  Nanos wait_for_next(SteadyTime now) const;

  Nanos interval_;  // time to earn one token (1 / qps)
  int burst_;
  // When the bucket would be refilled up to the point of the last reservation; nullopt = full.
  std::optional<SteadyTime> theoretical_arrival_;
};

// A global bucket shared by all keys (client-go BucketRateLimiter): forget is a no-op.
class BucketRateLimiter final : public RateLimiter {
 public:
  BucketRateLimiter(double qps, int burst) : bucket_(qps, burst) {}
  Nanos when(const std::string& key, SteadyTime now) override;
  void forget(const std::string&) override {}
  int num_requeues(const std::string&) const override { return 0; }

 private:
  TokenBucket bucket_;
};

// The largest wait of its members; every member sees every call (client-go MaxOfRateLimiter).
class MaxOfRateLimiter final : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters);
  Nanos when(const std::string& key, SteadyTime now) override;
  void forget(const std::string& key) override;
  int num_requeues(const std::string& key) const override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// Knobs of the controller's default limiter (controller-runtime users ask for these to be
// configurable: controller-runtime#631, #808). Defaults are client-go's.
struct ControllerRateLimiterConfig {
  Nanos base_delay = std::chrono::milliseconds(5);
  Nanos max_delay = std::chrono::seconds(1000);
  double qps = 10.0;
  int burst = 100;
};

// max(per-item exponential, global bucket): client-go DefaultControllerRateLimiter by default.
std::unique_ptr<RateLimiter> make_controller_rate_limiter(
    const ControllerRateLimiterConfig& config = {});

// The REST client's own limiter (client-go rest.Config QPS/Burst) plus server push-back.
struct RequestRateLimitConfig {
  // rest.Config semantics: 0 means the default (5 qps, burst 10); a negative QPS disables
  // client-side limiting (what controller-runtime now does in favour of API Priority & Fairness).
  double qps = 0.0;
  int burst = 0;
};

class RequestRateLimiter {
 public:
  explicit RequestRateLimiter(const RequestRateLimitConfig& config = {});
  static RequestRateLimiter disabled() {
    return RequestRateLimiter(RequestRateLimitConfig{-1.0, 0});
  }

  bool enabled() const { return bucket_.has_value(); }
  // Takes a request slot; returns how long to wait before sending. Honours any Retry-After pause
  // even when the bucket is disabled: a 429 is the server asking this client to slow down.
  Nanos reserve(SteadyTime now);
  // Records a server-requested pause (429/503 + Retry-After): no request goes out before
  // now + wait. Pauses only ever extend, a shorter later hint never cuts an earlier one.
  void pause_for_retry_after(SteadyTime now, Nanos wait);

 private:
  std::optional<TokenBucket> bucket_;
  std::optional<SteadyTime> paused_until_;
};

// Retry-After (RFC 9110 §10.2.3): delta-seconds ("120") or an HTTP-date in any of the three forms
// recipients must accept (IMF-fixdate, RFC 850, asctime). `wall_now` is the caller's wall-clock
// reading, an input like every other time. Dates in the past give zero. nullopt when malformed.
std::optional<Nanos> parse_retry_after(std::string_view value, WallTime wall_now);

// The wait a response asks for: 429 Too Many Requests, or any 5xx, with a valid Retry-After
// (client-go's checkWait). nullopt when the response does not ask the client to wait and retry.
std::optional<Nanos> retry_after_wait(int http_status, std::optional<std::string_view> retry_after,
                                      WallTime wall_now);

}  // namespace nvcre::k8s
