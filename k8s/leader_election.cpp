#include "k8s/leader_election.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace nvcre::k8s {

namespace json = boost::json;
using std::chrono::steady_clock;

namespace {

std::int64_t int_field(const json::object& obj, const char* key) {
  const auto* v = obj.if_contains(key);
  if (!v) return 0;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->as_uint64());
  return 0;
}

// The Lease stores whole seconds; rounding up keeps our promise at least as long as configured.
std::int64_t whole_seconds(std::chrono::nanoseconds d) {
  return std::chrono::ceil<std::chrono::seconds>(d).count();
}

void write_record(json::object& spec, const LeaseRecord& record) {
  spec["holderIdentity"] = record.holder_identity;
  spec["leaseDurationSeconds"] = record.lease_duration_seconds;
  if (!record.acquire_time.empty()) spec["acquireTime"] = record.acquire_time;
  if (!record.renew_time.empty()) spec["renewTime"] = record.renew_time;
  spec["leaseTransitions"] = record.lease_transitions;
}

}  // namespace

void validate(const LeaderElectionConfig& config, double jitter_factor) {
  if (config.identity.empty())
    throw std::invalid_argument("leader election: identity must not be empty");
  if (config.lease_name.empty() || config.lease_namespace.empty())
    throw std::invalid_argument("leader election: lease namespace and name must not be empty");
  if (config.retry_period <= std::chrono::nanoseconds::zero())
    throw std::invalid_argument("leader election: retry period must be positive");
  if (config.lease_duration < std::chrono::seconds(1))
    throw std::invalid_argument("leader election: lease duration must be at least 1s");
  if (config.lease_duration <= config.renew_deadline)
    throw std::invalid_argument(
        "leader election: lease duration must be greater than the renew deadline");
  if (static_cast<double>(config.renew_deadline.count()) <=
      jitter_factor * static_cast<double>(config.retry_period.count()))
    throw std::invalid_argument(
        "leader election: renew deadline must be greater than retry period * jitter");
}

LeaseRecord lease_record_of(const json::value& lease) {
  LeaseRecord record;
  const auto* obj = lease.if_object();
  const auto* spec_value = obj ? obj->if_contains("spec") : nullptr;
  if (!spec_value || !spec_value->is_object()) return record;
  const auto& spec = spec_value->as_object();
  record.holder_identity = jsonkit::string_at(lease, {"spec", "holderIdentity"});
  record.lease_duration_seconds = int_field(spec, "leaseDurationSeconds");
  record.acquire_time = jsonkit::string_at(lease, {"spec", "acquireTime"});
  record.renew_time = jsonkit::string_at(lease, {"spec", "renewTime"});
  record.lease_transitions = int_field(spec, "leaseTransitions");
  return record;
}

LeaderElection::LeaderElection(LeaderElectionConfig config, double jitter_factor)
    : config_(std::move(config)) {
  validate(config_, jitter_factor);
}

ElectionStep LeaderElection::observe(const std::optional<json::value>& lease, ElectionTime now) {
  std::vector<LeadershipEvent> events;
  check_deadline_into(now.monotonic, events);
  pending_.reset();
  if (released_) return {std::nullopt, std::move(events)};

  const std::string stamp = format_rfc3339_micro(now.wall);
  LeaseRecord next{config_.identity, whole_seconds(config_.lease_duration), stamp, stamp, 0};
  if (!lease) {
    // Deleted under us: whoever creates it next leads, so we no longer do.
    lease_.reset();
    observed_record_.reset();
    if (leading_) step_down(events);
    return request_write(LeaseWrite::Kind::Create, std::move(next), now, false, std::move(events));
  }

  lease_ = *lease;
  LeaseRecord record = lease_record_of(*lease);
  if (!observed_record_ || *observed_record_ != record) {
    observed_record_ = record;
    observed_at_ = now.monotonic;
  }
  report_holder(record.holder_identity, events);
  if (leading_ && record.holder_identity != config_.identity) step_down(events);
  if (held_by_other_and_valid(now.monotonic)) return {std::nullopt, std::move(events)};

  if (record.holder_identity == config_.identity) {
    // Renewal: same term, so the acquire time and transition count stay.
    if (!record.acquire_time.empty()) next.acquire_time = record.acquire_time;
    next.lease_transitions = record.lease_transitions;
  } else {
    next.lease_transitions = record.lease_transitions + 1;
  }
  return request_write(LeaseWrite::Kind::Update, std::move(next), now, false, std::move(events));
}

ElectionStep LeaderElection::read_failed(ElectionTime now) {
  pending_.reset();
  return check_deadline(now.monotonic);
}

ElectionStep LeaderElection::write_succeeded(const json::value& lease, ElectionTime now) {
  if (!pending_) throw std::logic_error("leader election: write_succeeded without a pending write");
  const PendingWrite sent = std::move(*pending_);
  pending_.reset();
  std::vector<LeadershipEvent> events;
  lease_ = lease;
  const LeaseRecord record = lease_record_of(lease);
  observed_record_ = record;
  observed_at_ = now.monotonic;
  report_holder(record.holder_identity, events);
  if (sent.release || record.holder_identity != config_.identity) {
    if (leading_) step_down(events);
    return {std::nullopt, std::move(events)};
  }
  // Count from when the request left: the server accepted it no earlier, so every other candidate
  // observed it no earlier either and waits lease_duration > renew_deadline from then.
  leading_until_ = sent.sent + config_.renew_deadline;
  if (!leading_ && now.monotonic < leading_until_) {
    leading_ = true;
    events.push_back({LeadershipEvent::Kind::StartedLeading, {}});
  }
  check_deadline_into(now.monotonic, events);
  return {std::nullopt, std::move(events)};
}

ElectionStep LeaderElection::write_failed(WriteFailure failure, ElectionTime now) {
  if (!pending_) throw std::logic_error("leader election: write_failed without a pending write");
  pending_.reset();
  // A conflict means our copy is stale: the next read replaces it and tells who won.
  if (failure == WriteFailure::Conflict) lease_.reset();
  return check_deadline(now.monotonic);
}

ElectionStep LeaderElection::check_deadline(steady_clock::time_point now) {
  std::vector<LeadershipEvent> events;
  check_deadline_into(now, events);
  return {std::nullopt, std::move(events)};
}

ElectionStep LeaderElection::release(ElectionTime now) {
  std::vector<LeadershipEvent> events;
  if (released_) return {};
  released_ = true;
  pending_.reset();
  if (leading_) step_down(events);
  // Like client-go: release only what our last view says we hold; the resourceVersion check makes
  // the write fail if anyone wrote since.
  if (!lease_ || !observed_record_ || observed_record_->holder_identity != config_.identity)
    return {std::nullopt, std::move(events)};
  const std::string stamp = format_rfc3339_micro(now.wall);
  LeaseRecord cleared{"", 1, stamp, stamp, observed_record_->lease_transitions};
  return request_write(LeaseWrite::Kind::Update, std::move(cleared), now, true, std::move(events));
}

ElectionStep LeaderElection::abandon() {
  std::vector<LeadershipEvent> events;
  released_ = true;
  pending_.reset();
  if (leading_) step_down(events);
  return {std::nullopt, std::move(events)};
}

std::optional<steady_clock::time_point> LeaderElection::leading_until() const {
  if (!leading_) return std::nullopt;
  return leading_until_;
}

std::chrono::nanoseconds LeaderElection::next_wait(steady_clock::time_point now) const {
  if (!leading_) return config_.retry_period;
  const auto left = leading_until_ - now;
  if (left <= std::chrono::nanoseconds::zero()) return std::chrono::nanoseconds::zero();
  return std::min<std::chrono::nanoseconds>(config_.retry_period, left);
}

ElectionStep LeaderElection::request_write(LeaseWrite::Kind kind, LeaseRecord record,
                                           ElectionTime now, bool release,
                                           std::vector<LeadershipEvent> events) {
  json::value body;
  if (kind == LeaseWrite::Kind::Update && lease_ && lease_->is_object()) {
    body = *lease_;  // keeps metadata (resourceVersion, labels) and spec fields we do not own
  } else {
    body = json::object{{"metadata", json::object{{"name", config_.lease_name},
                                                  {"namespace", config_.lease_namespace}}}};
  }
  auto& obj = body.as_object();
  obj["apiVersion"] = "coordination.k8s.io/v1";
  obj["kind"] = "Lease";
  if (!obj.contains("spec") || !obj["spec"].is_object()) obj["spec"] = json::object{};
  write_record(obj["spec"].as_object(), record);
  pending_ = PendingWrite{std::move(record), now.monotonic, release};
  return {LeaseWrite{kind, std::move(body)}, std::move(events)};
}

void LeaderElection::step_down(std::vector<LeadershipEvent>& events) {
  leading_ = false;
  events.push_back({LeadershipEvent::Kind::StoppedLeading, {}});
}

void LeaderElection::report_holder(const std::string& holder,
                                   std::vector<LeadershipEvent>& events) {
  // "Nobody" (a released Lease) is not a new leader; it only resets what we reported.
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  if (!holder.empty()) events.push_back({LeadershipEvent::Kind::NewLeader, holder});
}

void LeaderElection::check_deadline_into(steady_clock::time_point now,
                                         std::vector<LeadershipEvent>& events) {
  if (leading_ && now >= leading_until_) step_down(events);
}

bool LeaderElection::held_by_other_and_valid(steady_clock::time_point now) const {
  if (!observed_record_) return false;
  const auto& holder = observed_record_->holder_identity;
  if (holder.empty() || holder == config_.identity) return false;
  // The holder's own promise when it made one, else ours (a hand-edited Lease without a duration).
  const auto duration = observed_record_->lease_duration_seconds > 0
                            ? std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::seconds(observed_record_->lease_duration_seconds))
                            : config_.lease_duration;
  return now < observed_at_ + duration;
}

}  // namespace nvcre::k8s
