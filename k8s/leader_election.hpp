#pragma once
// Leader election on a coordination.k8s.io/v1 Lease, as a pure state machine with client-go's
// semantics (tools/leaderelection): the caller reads the Lease, hands it in with the time, performs
// the write the machine asks for and reports how it went. No I/O, no clock reads, no sleeping; the
// blocking driver is k8s/leader_elector.hpp.
//
// Rules:
// - A missing Lease is created with us as holder; a Lease held by nobody (released) is taken at
// once.
// - A Lease held by someone else is taken only after leaseDurationSeconds have passed since we
//   OBSERVED its record change (our monotonic clock), never by comparing the stored renewTime with
//   our clock: clocks of different machines disagree, our own observation does not.
// - Every write carries the resourceVersion we read, so of several candidates exactly one wins; a
//   409 means we lost the race (or our view is stale) and the next read tells who won.
// - A leader renews every retry period. It counts its leadership from the moment it SENT its last
//   successful write and steps down when renew_deadline passes without one. Others wait
//   lease_duration (> renew_deadline) from the moment they saw that write, so the two never
//   overlap.
// - Unlike client-go, a leader that reads a record naming someone else steps down immediately
//   instead of riding out its renew deadline: the record proves it is no longer the holder.
// - Release (graceful shutdown, client-go ReleaseOnCancel): holderIdentity "" and
//   leaseDurationSeconds 1, so a standby takes over on its next attempt.
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::k8s {

struct LeaderElectionConfig {
  std::string identity;  // unique per process (e.g. pod name + random suffix)
  std::string lease_namespace;
  std::string lease_name;
  std::chrono::nanoseconds lease_duration = std::chrono::seconds(15);
  std::chrono::nanoseconds renew_deadline = std::chrono::seconds(10);
  std::chrono::nanoseconds retry_period = std::chrono::seconds(2);
};

// client-go's checks: a non-empty identity and lease name, lease_duration > renew_deadline >
// jitter_factor * retry_period > 0, and a lease duration of at least one whole second (the Lease
// stores whole seconds). Throws std::invalid_argument.
void validate(const LeaderElectionConfig& config, double jitter_factor = 1.2);

// The election fields of a Lease spec (client-go's LeaderElectionRecord). Times are kept as the
// wire strings: they are written for humans and tools; we never judge expiry by them.
struct LeaseRecord {
  std::string holder_identity;
  std::int64_t lease_duration_seconds = 0;
  std::string acquire_time;  // MicroTime
  std::string renew_time;    // MicroTime
  std::int64_t lease_transitions = 0;

  bool operator==(const LeaseRecord&) const = default;
};

// Reads spec of a Lease; missing or mistyped fields read as empty/zero (a hand-edited Lease must
// not stop the election).
LeaseRecord lease_record_of(const boost::json::value& lease);

// Both clocks: `monotonic` judges expiry and deadlines, `wall` only fills acquireTime/renewTime.
struct ElectionTime {
  std::chrono::steady_clock::time_point monotonic;
  std::chrono::system_clock::time_point wall;
};

struct LeaseWrite {
  enum class Kind { Create, Update };
  Kind kind = Kind::Create;
  boost::json::value body;  // a whole Lease; an update carries the resourceVersion we read
};

struct LeadershipEvent {
  enum class Kind { StartedLeading, StoppedLeading, NewLeader };
  Kind kind = Kind::NewLeader;
  std::string identity;  // NewLeader: the holder now observed

  bool operator==(const LeadershipEvent&) const = default;
};

// What to do next: perform `write` (if any), then report write_succeeded / write_failed.
struct ElectionStep {
  std::optional<LeaseWrite> write;
  std::vector<LeadershipEvent> events;  // in order; hand them to the callbacks before writing
};

// How a write failed: Conflict covers 409 Conflict and AlreadyExists (someone else wrote first).
enum class WriteFailure { Conflict, Other };

class LeaderElection {
 public:
  // Throws std::invalid_argument when validate(config, jitter_factor) does.
  explicit LeaderElection(LeaderElectionConfig config, double jitter_factor = 1.2);

  // The Lease as just read; nullopt when it does not exist (404).
  ElectionStep observe(const std::optional<boost::json::value>& lease, ElectionTime now);
  // The read failed (transport error, 5xx, ...): nothing learnt, only the deadline may pass.
  ElectionStep read_failed(ElectionTime now);
  // The pending write was accepted; `lease` is the server's answer.
  ElectionStep write_succeeded(const boost::json::value& lease, ElectionTime now);
  ElectionStep write_failed(WriteFailure failure, ElectionTime now);
  // Steps down when the renew deadline has passed; call whenever the driver wakes up.
  ElectionStep check_deadline(std::chrono::steady_clock::time_point now);
  // Graceful shutdown: StoppedLeading plus the releasing update when we lead; afterwards the
  // machine never asks to write again except to finish this release.
  ElectionStep release(ElectionTime now);
  // Abrupt stop without touching the Lease: StoppedLeading when we lead.
  ElectionStep abandon();

  bool is_leader() const { return leading_; }
  // While leading: the instant leadership ends unless a renewal succeeds first.
  std::optional<std::chrono::steady_clock::time_point> leading_until() const;
  // How long to wait before the next attempt: the retry period, cut short at the renew deadline
  // while leading. Candidates add jitter in the driver (client-go JitterUntil, factor 1.2).
  std::chrono::nanoseconds next_wait(std::chrono::steady_clock::time_point now) const;
  // The holder we last observed ("" when none or unknown).
  const std::string& observed_leader() const { return reported_leader_; }
  bool released() const { return released_; }
  const LeaderElectionConfig& config() const { return config_; }

 private:
  struct PendingWrite {
    LeaseRecord record;
    std::chrono::steady_clock::time_point sent;  // before the request left: the conservative start
    bool release = false;
  };

  ElectionStep request_write(LeaseWrite::Kind kind, LeaseRecord record, ElectionTime now,
                             bool release, std::vector<LeadershipEvent> events);
  void step_down(std::vector<LeadershipEvent>& events);
  void report_holder(const std::string& holder, std::vector<LeadershipEvent>& events);
  void check_deadline_into(std::chrono::steady_clock::time_point now,
                           std::vector<LeadershipEvent>& events);
  bool held_by_other_and_valid(std::chrono::steady_clock::time_point now) const;

  LeaderElectionConfig config_;
  std::optional<boost::json::value> lease_;  // the last Lease read or written (for RV and metadata)
  std::optional<LeaseRecord> observed_record_;
  std::chrono::steady_clock::time_point observed_at_{};  // when observed_record_ last changed
  std::optional<PendingWrite> pending_;
  bool leading_ = false;
  std::chrono::steady_clock::time_point leading_until_{};
  std::string reported_leader_;
  bool released_ = false;
};

}  // namespace nvcre::k8s
