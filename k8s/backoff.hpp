#pragma once
// Jittered exponential backoff for reconnecting list/watch (client-go's reflector uses
// NewExponentialBackoffManager(800ms, 30s, 2min, factor 2.0, jitter 1.0)). Pure: `now` is an
// input and the jitter comes from a seeded engine, so a seed fixes the whole sequence.
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

namespace nvcre::k8s {

struct BackoffConfig {
  std::chrono::nanoseconds initial = std::chrono::milliseconds(800);
  std::chrono::nanoseconds cap = std::chrono::seconds(30);
  double factor = 2.0;
  // Each wait is d + u * jitter * d with u uniform in [0, 1); jitter 1.0 means [d, 2d), so once
  // capped the waits settle in [30 s, 60 s).
  double jitter = 1.0;
  // A backoff more than this long after the previous one starts again from `initial`: the
  // connection was evidently healthy in between.
  std::chrono::nanoseconds reset_after = std::chrono::minutes(2);
};

// A value type owned by one reflector; not thread-safe by design.
class ExponentialBackoff {
 public:
  explicit ExponentialBackoff(BackoffConfig config = {}, std::uint64_t seed = 0);

  // The wait before the next attempt, starting at `now`; advances the sequence.
  std::chrono::nanoseconds next(std::chrono::steady_clock::time_point now);
  // Forget the failure history (e.g. after an explicit success signal).
  void reset();
  // The un-jittered base the next call would use if no reset applies (for status/metrics).
  std::chrono::nanoseconds current_base() const { return current_; }
  const BackoffConfig& config() const { return config_; }

 private:
  BackoffConfig config_;
  std::chrono::nanoseconds current_;
  std::optional<std::chrono::steady_clock::time_point> last_backoff_;
  std::mt19937_64 engine_;
};

// Uniform double in [0, 1) from the top 53 bits of one engine draw. Written out (instead of
// std::uniform_real_distribution, whose algorithm is implementation-defined) so a seed gives the
// same numbers with every standard library.
double unit_interval(std::mt19937_64& engine);

}  // namespace nvcre::k8s
