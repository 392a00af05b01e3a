#include "k8s/backoff.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nvcre::k8s {

using std::chrono::nanoseconds;

namespace {
// Durations are computed in double and clamped before converting back, so an extreme factor or
// jitter saturates instead of overflowing int64 nanoseconds.
nanoseconds saturating(double nanos) {
  constexpr double kMax = static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2);
  if (!(nanos > 0.0)) return nanoseconds::zero();
  return nanoseconds(static_cast<std::int64_t>(std::min(nanos, kMax)));
}
}  // namespace

double unit_interval(std::mt19937_64& engine) {
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

ExponentialBackoff::ExponentialBackoff(BackoffConfig config, std::uint64_t seed)
    : config_(config), current_(config.initial), engine_(seed) {}

void ExponentialBackoff::reset() {
  current_ = config_.initial;
  last_backoff_.reset();
}

nanoseconds ExponentialBackoff::next(std::chrono::steady_clock::time_point now) {
  if (last_backoff_ && now - *last_backoff_ > config_.reset_after) current_ = config_.initial;
  last_backoff_ = now;

  const nanoseconds base = current_;
  // Grow for the following call; once the cap is reached every later base is the cap.
  const nanoseconds grown = saturating(static_cast<double>(current_.count()) * config_.factor);
  current_ = config_.cap > nanoseconds::zero() ? std::min(grown, config_.cap) : grown;

  if (config_.jitter <= 0.0) return base;
  const double extra = unit_interval(engine_) * config_.jitter * static_cast<double>(base.count());
  return base + saturating(extra);
}

}  // namespace nvcre::k8s
