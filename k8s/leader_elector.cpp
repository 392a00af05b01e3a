#include "k8s/leader_elector.hpp"

#include "k8s/backoff.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <utility>

namespace nvcre::k8s {

namespace {

const ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};

std::uint64_t seed_or_random(std::uint64_t seed) {
  return seed != 0 ? seed : std::random_device{}();
}

}  // namespace

LeaderElector::LeaderElector(RestClient& client, LeaderElectorOptions options)
    : client_(client),
      options_(std::move(options)),
      machine_(options_.election, options_.jitter_factor),
      rng_(seed_or_random(options_.seed)) {}

void LeaderElector::run() {
  const bool rejoin = options_.rejoin_after_loss;
  while (!stopping()) {
    bool lost = apply(machine_.check_deadline(now().monotonic));
    if (!lost || rejoin) lost = attempt() || lost;
    if (lost && !rejoin) break;
    auto wait = machine_.next_wait(now().monotonic);
    if (!machine_.is_leader() && options_.jitter_factor > 0) {
      const double extra =
          unit_interval(rng_) * options_.jitter_factor * static_cast<double>(wait.count());
      wait += std::chrono::nanoseconds(static_cast<std::int64_t>(extra));
    }
    sleep_for(wait);
  }
  finish();
}

void LeaderElector::stop(StopMode mode) {
  {
    std::lock_guard lock(mutex_);
    if (stop_requested_) return;
    stop_requested_ = true;
    stop_mode_ = mode;
  }
  wake_.notify_all();
}

bool LeaderElector::is_leader() const {
  if (!leading_.load()) return false;
  const auto ticks = now().monotonic.time_since_epoch().count();
  return ticks < leading_until_ns_.load();
}

std::string LeaderElector::leader() const {
  std::lock_guard lock(mutex_);
  return leader_;
}

bool LeaderElector::attempt() {
  const auto& config = options_.election;
  std::optional<boost::json::value> lease;
  try {
    lease = client_.get(kLeases, config.lease_namespace, config.lease_name);
  } catch (const ApiError& error) {
    if (!is_not_found(error)) {
      report_error("get", error);
      return apply(machine_.read_failed(now()));
    }
  } catch (const std::exception& error) {  // TransportError, an undecodable answer
    report_error("get", error);
    return apply(machine_.read_failed(now()));
  }
  const ElectionStep step = machine_.observe(lease, now());
  bool lost = apply(step);
  if (step.write) lost = perform(*step.write) || lost;
  return lost;
}

bool LeaderElector::perform(const LeaseWrite& write) {
  const auto& ns = options_.election.lease_namespace;
  const bool create = write.kind == LeaseWrite::Kind::Create;
  try {
    auto answer =
        create ? client_.create(kLeases, ns, write.body) : client_.update(kLeases, ns, write.body);
    return apply(machine_.write_succeeded(answer, now()));
  } catch (const ApiError& error) {
    // Conflict or AlreadyExists: another candidate wrote first; not worth an error report.
    const bool lost_race = is_conflict(error) || is_already_exists(error);
    if (!lost_race) report_error(create ? "create" : "update", error);
    return apply(
        machine_.write_failed(lost_race ? WriteFailure::Conflict : WriteFailure::Other, now()));
  } catch (const std::exception& error) {
    report_error(create ? "create" : "update", error);
    return apply(machine_.write_failed(WriteFailure::Other, now()));
  }
}

bool LeaderElector::apply(const ElectionStep& step) {
  // Publish before the callbacks: is_leader() is false by the time on_stopped_leading runs and
  // true (with its deadline) by the time on_started_leading runs.
  if (auto until = machine_.leading_until())
    leading_until_ns_.store(until->time_since_epoch().count());
  leading_.store(machine_.is_leader());
  bool lost = false;
  for (const auto& event : step.events) {
    switch (event.kind) {
      case LeadershipEvent::Kind::StartedLeading:
        if (options_.callbacks.on_started_leading) options_.callbacks.on_started_leading();
        break;
      case LeadershipEvent::Kind::StoppedLeading:
        lost = true;
        if (options_.callbacks.on_stopped_leading) options_.callbacks.on_stopped_leading();
        break;
      case LeadershipEvent::Kind::NewLeader: {
        {
          std::lock_guard lock(mutex_);
          leader_ = event.identity;
        }
        if (options_.callbacks.on_new_leader) options_.callbacks.on_new_leader(event.identity);
        break;
      }
    }
  }
  if (machine_.observed_leader().empty()) {
    std::lock_guard lock(mutex_);
    leader_.clear();
  }
  return lost;
}

void LeaderElector::finish() {
  StopMode mode = StopMode::Release;
  {
    std::lock_guard lock(mutex_);
    if (stop_requested_) mode = stop_mode_;
  }
  if (mode == StopMode::Abandon || !options_.release_on_stop) {
    apply(machine_.abandon());
    return;
  }
  const ElectionStep step = machine_.release(now());
  apply(step);
  if (step.write) perform(*step.write);
}

void LeaderElector::sleep_for(std::chrono::nanoseconds wait) {
  if (options_.sleep) {
    options_.sleep(wait);
    return;
  }
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, wait, [this] { return stop_requested_; });
}

bool LeaderElector::stopping() const {
  std::lock_guard lock(mutex_);
  return stop_requested_;
}

ElectionTime LeaderElector::now() const {
  if (options_.clock) return options_.clock();
  return {std::chrono::steady_clock::now(), std::chrono::system_clock::now()};
}

void LeaderElector::report_error(const std::string& what, const std::exception& error) const {
  if (!options_.callbacks.on_error) return;
  const auto& config = options_.election;
  options_.callbacks.on_error(what + " lease " + config.lease_namespace + "/" + config.lease_name +
                              ": " + error.what());
}

}  // namespace nvcre::k8s
