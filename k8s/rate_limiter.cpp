#include "k8s/rate_limiter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace nvcre::k8s {

using std::chrono::seconds;

// ---- per-item exponential -------------------------------------------------------------------

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Nanos base, Nanos max)
    : base_(std::max(base, Nanos::zero())), max_(std::max(max, Nanos::zero())) {}

Nanos ItemExponentialFailureRateLimiter::when(const std::string& key, SteadyTime) {
  const int exponent = failures_[key]++;
  // base << exponent without overflow: anything that would pass `max` is `max`.
  if (base_ == Nanos::zero()) return Nanos::zero();
  if (exponent >= 62 || base_.count() > (max_.count() >> exponent)) return max_;
  return std::min(Nanos(base_.count() << exponent), max_);
}

void ItemExponentialFailureRateLimiter::forget(const std::string& key) { failures_.erase(key); }

int ItemExponentialFailureRateLimiter::num_requeues(const std::string& key) const {
  const auto found = failures_.find(key);
  return found == failures_.end() ? 0 : found->second;
}

// ---- token bucket ---------------------------------------------------------------------------
//
// Token-bucket state "tokens at time t" is kept as the instant T at which the bucket would have
// earned back every token reserved so far. A reservation at `now` may use a token immediately
// if T - now <= (burst - 1) * interval, i.e. at least one token is left; otherwise it waits for
// the difference. Each reservation moves T one interval later (from `now` if the bucket had
// refilled completely, which is what caps tokens at `burst`).

namespace {
Nanos interval_for(double qps) {
  if (!(qps > 0.0) || !std::isfinite(qps)) return Nanos(1);
  const double nanos = std::round(1e9 / qps);
  if (nanos >= static_cast<double>(std::numeric_limits<std::int64_t>::max() / 4)) {
    return Nanos(std::numeric_limits<std::int64_t>::max() / 4);  // absurdly slow, still finite
  }
  return Nanos(std::max<std::int64_t>(1, static_cast<std::int64_t>(nanos)));
}
}  // namespace

TokenBucket::TokenBucket(double qps, int burst)
    : interval_(interval_for(qps)), burst_(std::max(1, burst)) {}

Nanos TokenBucket::wait_for_next(SteadyTime now) const {
  if (!theoretical_arrival_ || *theoretical_arrival_ <= now) return Nanos::zero();
  const Nanos debt = *theoretical_arrival_ - now;
  const Nanos tolerance = interval_ * (burst_ - 1);
  return debt > tolerance ? debt - tolerance : Nanos::zero();
}

Nanos TokenBucket::reserve(SteadyTime now) {
  const Nanos wait = wait_for_next(now);
  const SteadyTime from = theoretical_arrival_ ? std::max(*theoretical_arrival_, now) : now;
  theoretical_arrival_ = from + interval_;
  return wait;
}

bool TokenBucket::try_accept(SteadyTime now) {
  if (wait_for_next(now) > Nanos::zero()) return false;
  reserve(now);
  return true;
}

Nanos BucketRateLimiter::when(const std::string&, SteadyTime now) { return bucket_.reserve(now); }

// ---- max-of ---------------------------------------------------------------------------------

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

Nanos MaxOfRateLimiter::when(const std::string& key, SteadyTime now) {
  // Every member must be consulted (not short-circuited): each records the failure/reservation.
  Nanos longest = Nanos::zero();
  for (auto& limiter : limiters_) longest = std::max(longest, limiter->when(key, now));
  return longest;
}

void MaxOfRateLimiter::forget(const std::string& key) {
  for (auto& limiter : limiters_) limiter->forget(key);
}

int MaxOfRateLimiter::num_requeues(const std::string& key) const {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->num_requeues(key));
  return most;
}

std::unique_ptr<RateLimiter> make_controller_rate_limiter(
    const ControllerRateLimiterConfig& config) {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(
      std::make_unique<ItemExponentialFailureRateLimiter>(config.base_delay, config.max_delay));
  limiters.push_back(std::make_unique<BucketRateLimiter>(config.qps, config.burst));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

// ---- REST client limiter --------------------------------------------------------------------

namespace {
constexpr double kDefaultClientQps = 5.0;
constexpr int kDefaultClientBurst = 10;

std::optional<TokenBucket> bucket_for(const RequestRateLimitConfig& config) {
  if (config.qps < 0.0) return std::nullopt;
  const double qps = config.qps == 0.0 ? kDefaultClientQps : config.qps;
  const int burst = config.burst == 0 ? kDefaultClientBurst : config.burst;
  return TokenBucket(qps, burst);
}
}  // namespace

RequestRateLimiter::RequestRateLimiter(const RequestRateLimitConfig& config)
    : bucket_(bucket_for(config)) {}

Nanos RequestRateLimiter::reserve(SteadyTime now) {
  Nanos wait = bucket_ ? bucket_->reserve(now) : Nanos::zero();
  if (paused_until_ && *paused_until_ > now) wait = std::max(wait, Nanos(*paused_until_ - now));
  return wait;
}

void RequestRateLimiter::pause_for_retry_after(SteadyTime now, Nanos wait) {
  const SteadyTime until = now + std::max(wait, Nanos::zero());
  if (!paused_until_ || until > *paused_until_) paused_until_ = until;
}

// ---- Retry-After ----------------------------------------------------------------------------

namespace {

// Larger hints are clamped: a server asking for decades means "not now", and int64 nanoseconds
// must not overflow.
constexpr std::int64_t kMaxRetryAfterSeconds = 1'000'000'000;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A forward-only reader over the date text; every step fails closed.
struct Cursor {
  std::string_view text;
  bool ok = true;

  bool literal(std::string_view expected) {
    if (!ok || text.substr(0, expected.size()) != expected) return ok = false;
    text.remove_prefix(expected.size());
    return true;
  }
  int digits(std::size_t count) {
    if (!ok || text.size() < count) return (ok = false), 0;
    int value = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (!is_digit(text[i])) return (ok = false), 0;
      value = value * 10 + (text[i] - '0');
    }
    text.remove_prefix(count);
    return value;
  }
  // One of `names` (case-sensitive, as the grammar requires); returns its index.
  template <std::size_t N>
  int one_of(const std::array<std::string_view, N>& names) {
    if (!ok) return 0;
    for (std::size_t i = 0; i < N; ++i) {
      if (text.substr(0, names[i].size()) == names[i]) {
        text.remove_prefix(names[i].size());
        return static_cast<int>(i);
      }
    }
    return (ok = false), 0;
  }
};

constexpr std::array<std::string_view, 7> kShortDays = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kLongDays = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

struct Fields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

void read_time_of_day(Cursor& in, Fields& f) {
  f.hour = in.digits(2);
  in.literal(":");
  f.minute = in.digits(2);
  in.literal(":");
  f.second = in.digits(2);
}

// "Sun, 06 Nov 1994 08:49:37 GMT"
std::optional<Fields> parse_imf_fixdate(std::string_view text) {
  Cursor in{text};
  Fields f;
  in.one_of(kShortDays);
  in.literal(", ");
  f.day = in.digits(2);
  in.literal(" ");
  f.month = in.one_of(kMonths) + 1;
  in.literal(" ");
  f.year = in.digits(4);
  in.literal(" ");
  read_time_of_day(in, f);
  in.literal(" GMT");
  if (!in.ok || !in.text.empty()) return std::nullopt;
  return f;
}

// "Sunday, 06-Nov-94 08:49:37 GMT"; a two-digit year more than 50 years ahead of `now_year`
// means the most recent past year with those digits (RFC 9110 §5.6.7).
std::optional<Fields> parse_rfc850(std::string_view text, int now_year) {
  Cursor in{text};
  Fields f;
  in.one_of(kLongDays);
  in.literal(", ");
  f.day = in.digits(2);
  in.literal("-");
  f.month = in.one_of(kMonths) + 1;
  in.literal("-");
  const int two_digit_year = in.digits(2);
  in.literal(" ");
  read_time_of_day(in, f);
  in.literal(" GMT");
  if (!in.ok || !in.text.empty()) return std::nullopt;
  f.year = now_year - now_year % 100 + two_digit_year;
  if (f.year > now_year + 50) f.year -= 100;
  return f;
}

// "Sun Nov  6 08:49:37 1994"
std::optional<Fields> parse_asctime(std::string_view text) {
  Cursor in{text};
  Fields f;
  in.one_of(kShortDays);
  in.literal(" ");
  f.month = in.one_of(kMonths) + 1;
  in.literal(" ");
  if (in.ok && !in.text.empty() && in.text.front() == ' ') {
    in.literal(" ");
    f.day = in.digits(1);
  } else {
    f.day = in.digits(2);
  }
  in.literal(" ");
  read_time_of_day(in, f);
  in.literal(" ");
  f.year = in.digits(4);
  if (!in.ok || !in.text.empty()) return std::nullopt;
  return f;
}

std::optional<WallTime> to_wall_time(const Fields& f) {
  using namespace std::chrono;
  const year_month_day date{year{f.year}, month{static_cast<unsigned>(f.month)},
                            day{static_cast<unsigned>(f.day)}};
  // Second 60 is a leap second, which the grammar allows.
  if (!date.ok() || f.hour > 23 || f.minute > 59 || f.second > 60) return std::nullopt;
  return WallTime(sys_days(date)) + hours(f.hour) + minutes(f.minute) + seconds(f.second);
}

}  // namespace

std::optional<Nanos> parse_retry_after(std::string_view value, WallTime wall_now) {
  value = trim(value);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), is_digit)) {
    std::int64_t total = 0;
    for (const char c : value) {
      total = std::min(kMaxRetryAfterSeconds, total * 10 + (c - '0'));
    }
    return Nanos(seconds(total));
  }
  using namespace std::chrono;
  const int now_year = static_cast<int>(year_month_day(floor<days>(wall_now)).year());
  std::optional<Fields> fields = parse_imf_fixdate(value);
  if (!fields) fields = parse_rfc850(value, now_year);
  if (!fields) fields = parse_asctime(value);
  if (!fields) return std::nullopt;
  const auto when = to_wall_time(*fields);
  if (!when) return std::nullopt;
  if (*when <= wall_now) return Nanos::zero();
  return std::min(Nanos(*when - wall_now), Nanos(seconds(kMaxRetryAfterSeconds)));
}

std::optional<Nanos> retry_after_wait(int http_status, std::optional<std::string_view> retry_after,
                                      WallTime wall_now) {
  const bool asks_to_wait = http_status == 429 || (http_status >= 500 && http_status <= 599);
  if (!asks_to_wait || !retry_after) return std::nullopt;
  return parse_retry_after(*retry_after, wall_now);
}

}  // namespace nvcre::k8s
