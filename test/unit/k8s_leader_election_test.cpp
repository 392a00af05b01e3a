// The pure leader-election machine (k8s/leader_election.hpp): time is an input, the Lease is a
// JSON value, so every rule of client-go's elector is pinned without a server or a clock.
#include "k8s/leader_election.hpp"

#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <stdexcept>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Kind = LeadershipEvent::Kind;

const auto kWallBase = std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 56);

ElectionTime at(milliseconds offset) {
  return {std::chrono::steady_clock::time_point{} + offset, kWallBase + offset};
}

LeaderElectionConfig config_for(const std::string& identity) {
  LeaderElectionConfig config;
  config.identity = identity;
  config.lease_namespace = "nvcre-system";
  config.lease_name = "nvcre-leader";
  return config;  // client-go defaults: 15 s / 10 s / 2 s
}

json::value lease(const std::string& holder, const std::string& rv, std::int64_t transitions = 0,
                  const std::string& renew_time = "2030-01-01T00:00:00.000000Z",
                  std::int64_t duration = 15) {
  return json::object{{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", json::object{{"name", "nvcre-leader"},
                                                {"namespace", "nvcre-system"},
                                                {"resourceVersion", rv}}},
                      {"spec", json::object{{"holderIdentity", holder},
                                            {"leaseDurationSeconds", duration},
                                            {"acquireTime", "2030-01-01T00:00:00.000000Z"},
                                            {"renewTime", renew_time},
                                            {"leaseTransitions", transitions}}}};
}

// What the server answers to a write: the body with a new resourceVersion.
json::value accepted(const LeaseWrite& write, const std::string& rv) {
  json::value answer = write.body;
  answer.as_object()["metadata"].as_object()["resourceVersion"] = rv;
  return answer;
}

// A MicroTime as the Lease carries it.
json::value stamp(std::chrono::system_clock::time_point wall) {
  return json::value(format_rfc3339_micro(wall));
}

const json::object& spec_of(const LeaseWrite& write) { return write.body.at("spec").as_object(); }
std::string rv_of(const LeaseWrite& write) {
  return std::string(write.body.at("metadata").at("resourceVersion").as_string());
}

std::vector<LeadershipEvent> events(std::initializer_list<LeadershipEvent> list) { return list; }

// Makes "a" the leader at t0 through a create; returns the Lease the server holds afterwards.
json::value lead_from_scratch(LeaderElection& election, milliseconds t0 = milliseconds(0)) {
  auto step = election.observe(std::nullopt, at(t0));
  EXPECT_TRUE(step.write);
  auto answer = accepted(*step.write, "1");
  election.write_succeeded(answer, at(t0 + milliseconds(5)));
  EXPECT_TRUE(election.is_leader());
  return answer;
}

TEST(K8sLeaderElection, CreatesAMissingLeaseAndLeadsOnceItIsAccepted) {
  LeaderElection election(config_for("a"));
  auto step = election.observe(std::nullopt, at(milliseconds(0)));
  ASSERT_TRUE(step.write);
  EXPECT_EQ(step.write->kind, LeaseWrite::Kind::Create);
  EXPECT_TRUE(step.events.empty());
  EXPECT_FALSE(election.is_leader());  // not before the server said yes
  const auto& spec = spec_of(*step.write);
  EXPECT_EQ(spec.at("holderIdentity"), "a");
  EXPECT_EQ(spec.at("leaseDurationSeconds"), 15);
  EXPECT_EQ(spec.at("leaseTransitions"), 0);
  EXPECT_EQ(spec.at("acquireTime"), stamp(kWallBase));
  EXPECT_EQ(spec.at("renewTime"), spec.at("acquireTime"));
  EXPECT_EQ(step.write->body.at("metadata").at("namespace"), "nvcre-system");
  EXPECT_EQ(step.write->body.at("kind"), "Lease");

  auto done = election.write_succeeded(accepted(*step.write, "1"), at(milliseconds(30)));
  EXPECT_EQ(done.events, events({{Kind::NewLeader, "a"}, {Kind::StartedLeading, ""}}));
  EXPECT_TRUE(election.is_leader());
  // The deadline runs from when the request was sent, not from when the answer came back.
  EXPECT_EQ(election.leading_until(), at(seconds(10)).monotonic);
}

TEST(K8sLeaderElection, LeaseDurationIsWrittenInWholeSecondsRoundedUp) {
  auto config = config_for("a");
  config.lease_duration = milliseconds(1500);
  config.renew_deadline = milliseconds(1000);
  config.retry_period = milliseconds(200);
  LeaderElection election(config);
  auto step = election.observe(std::nullopt, at(milliseconds(0)));
  EXPECT_EQ(spec_of(*step.write).at("leaseDurationSeconds"), 2);
}

TEST(K8sLeaderElection, TakesAReleasedLeaseAtOnce) {
  LeaderElection election(config_for("a"));
  auto step = election.observe(lease("", "7", 3), at(milliseconds(0)));
  ASSERT_TRUE(step.write);
  EXPECT_EQ(step.write->kind, LeaseWrite::Kind::Update);
  EXPECT_EQ(rv_of(*step.write), "7");  // compare-and-swap on what we read
  EXPECT_EQ(spec_of(*step.write).at("holderIdentity"), "a");
  EXPECT_EQ(spec_of(*step.write).at("leaseTransitions"), 4);
  EXPECT_TRUE(step.events.empty());  // "nobody" is not reported as a new leader
}

TEST(K8sLeaderElection, RespectsAValidForeignLeaseWhateverItsRenewTimeSays) {
  LeaderElection election(config_for("a"));
  // renewTime decades ago: judged by our own observation, the lease is fresh.
  const auto old = lease("b", "7", 2, "2001-01-01T00:00:00.000000Z");
  auto first = election.observe(old, at(milliseconds(0)));
  EXPECT_FALSE(first.write);
  EXPECT_EQ(first.events, events({{Kind::NewLeader, "b"}}));
  EXPECT_EQ(election.observed_leader(), "b");
  auto later = election.observe(old, at(milliseconds(14999)));
  EXPECT_FALSE(later.write);
  EXPECT_TRUE(later.events.empty());  // the same leader is reported once
  EXPECT_FALSE(election.is_leader());
  EXPECT_EQ(election.next_wait(at(milliseconds(14999)).monotonic), seconds(2));
}

TEST(K8sLeaderElection, TakesOverALeaseUnchangedForALeaseDurationSinceObserved) {
  LeaderElection election(config_for("a"));
  // renewTime far in the future (a skewed clock) must not keep it alive either.
  const auto stuck = lease("b", "7", 2, "2100-01-01T00:00:00.000000Z");
  election.observe(stuck, at(milliseconds(0)));
  auto step = election.observe(stuck, at(seconds(15)));
  ASSERT_TRUE(step.write);
  EXPECT_EQ(rv_of(*step.write), "7");
  const auto& spec = spec_of(*step.write);
  EXPECT_EQ(spec.at("holderIdentity"), "a");
  EXPECT_EQ(spec.at("leaseTransitions"), 3);
  EXPECT_EQ(spec.at("acquireTime"), stamp(kWallBase + seconds(15)));
  auto done = election.write_succeeded(accepted(*step.write, "8"), at(milliseconds(15010)));
  EXPECT_EQ(done.events, events({{Kind::NewLeader, "a"}, {Kind::StartedLeading, ""}}));
}

TEST(K8sLeaderElection, EveryObservedChangeRestartsTheExpiryClock) {
  LeaderElection election(config_for("a"));
  election.observe(lease("b", "7", 0, "2030-01-01T00:00:00.000000Z"), at(milliseconds(0)));
  // b renewed at +10 s: a changed record, so the lease now lasts until +25 s.
  const auto renewed = lease("b", "8", 0, "2030-01-01T00:00:10.000000Z");
  EXPECT_FALSE(election.observe(renewed, at(seconds(10))).write);
  EXPECT_FALSE(election.observe(renewed, at(seconds(24))).write);
  EXPECT_TRUE(election.observe(renewed, at(seconds(25))).write);
}

TEST(K8sLeaderElection, HonoursTheHoldersOwnLeaseDuration) {
  LeaderElection election(config_for("a"));
  const auto long_lease = lease("b", "7", 0, "2030-01-01T00:00:00.000000Z", 30);
  election.observe(long_lease, at(milliseconds(0)));
  EXPECT_FALSE(election.observe(long_lease, at(seconds(29))).write);
  EXPECT_TRUE(election.observe(long_lease, at(seconds(30))).write);
}

TEST(K8sLeaderElection, RenewsKeepingAcquireTimeAndTransitions) {
  LeaderElection election(config_for("a"));
  auto held = lead_from_scratch(election);
  auto step = election.observe(held, at(seconds(2)));
  ASSERT_TRUE(step.write);
  EXPECT_TRUE(step.events.empty());
  const auto& spec = spec_of(*step.write);
  EXPECT_EQ(spec.at("acquireTime"), held.at("spec").at("acquireTime"));
  EXPECT_EQ(spec.at("leaseTransitions"), 0);
  EXPECT_EQ(spec.at("renewTime"), stamp(kWallBase + seconds(2)));
  EXPECT_EQ(rv_of(*step.write), "1");
  auto done = election.write_succeeded(accepted(*step.write, "2"), at(milliseconds(2010)));
  EXPECT_TRUE(done.events.empty());
  EXPECT_EQ(election.leading_until(), at(seconds(12)).monotonic);
  EXPECT_EQ(election.next_wait(at(milliseconds(2010)).monotonic), seconds(2));
}

TEST(K8sLeaderElection, StepsDownWhenNoRenewalSucceedsWithinTheRenewDeadline) {
  LeaderElection election(config_for("a"));
  auto held = lead_from_scratch(election);
  EXPECT_TRUE(election.read_failed(at(seconds(2))).events.empty());
  auto renew = election.observe(held, at(seconds(4)));
  ASSERT_TRUE(renew.write);
  EXPECT_TRUE(election.write_failed(WriteFailure::Other, at(seconds(5))).events.empty());
  EXPECT_TRUE(election.is_leader());
  // Near the deadline the leader wakes up exactly at it instead of a full retry period later.
  EXPECT_EQ(election.next_wait(at(milliseconds(9500)).monotonic), milliseconds(500));
  EXPECT_TRUE(election.check_deadline(at(milliseconds(9999)).monotonic).events.empty());
  auto lost = election.check_deadline(at(seconds(10)).monotonic);
  EXPECT_EQ(lost.events, events({{Kind::StoppedLeading, ""}}));
  EXPECT_FALSE(election.is_leader());
  EXPECT_FALSE(election.leading_until());
}

TEST(K8sLeaderElection, ARenewalAnsweredAfterTheDeadlineDoesNotRestoreLeadership) {
  LeaderElection election(config_for("a"));
  auto step = election.observe(std::nullopt, at(milliseconds(0)));
  auto late = election.write_succeeded(accepted(*step.write, "1"), at(seconds(11)));
  EXPECT_EQ(late.events, events({{Kind::NewLeader, "a"}}));  // holder, but not safely leading
  EXPECT_FALSE(election.is_leader());
}

TEST(K8sLeaderElection, ConflictOnTakeoverMeansAnotherCandidateWon) {
  LeaderElection election(config_for("a"));
  const auto expired = lease("b", "7", 2);
  election.observe(expired, at(milliseconds(0)));
  auto step = election.observe(expired, at(seconds(15)));
  ASSERT_TRUE(step.write);
  EXPECT_TRUE(
      election.write_failed(WriteFailure::Conflict, at(milliseconds(15010))).events.empty());
  EXPECT_FALSE(election.is_leader());
  // The winner's record is new to us: its lease runs a full duration from now.
  auto seen = election.observe(lease("c", "8", 3), at(milliseconds(15200)));
  EXPECT_FALSE(seen.write);
  EXPECT_EQ(seen.events, events({{Kind::NewLeader, "c"}}));
}

TEST(K8sLeaderElection, AlreadyExistsOnCreateMeansAnotherCandidateWon) {
  LeaderElection election(config_for("a"));
  ASSERT_TRUE(election.observe(std::nullopt, at(milliseconds(0))).write);
  EXPECT_TRUE(election.write_failed(WriteFailure::Conflict, at(milliseconds(10))).events.empty());
  EXPECT_FALSE(election.is_leader());
  EXPECT_FALSE(election.observe(lease("b", "1"), at(milliseconds(200))).write);
}

TEST(K8sLeaderElection, ConflictOnRenewKeepsLeadingUntilTheNextRead) {
  LeaderElection election(config_for("a"));
  auto held = lead_from_scratch(election);
  ASSERT_TRUE(election.observe(held, at(seconds(2))).write);
  EXPECT_TRUE(election.write_failed(WriteFailure::Conflict, at(milliseconds(2010))).events.empty());
  EXPECT_TRUE(election.is_leader());
  // Someone touched only the labels: still our record, renewed against the new version.
  auto relabelled = held;
  relabelled.at("metadata").as_object()["resourceVersion"] = "5";
  auto step = election.observe(relabelled, at(seconds(4)));
  ASSERT_TRUE(step.write);
  EXPECT_EQ(rv_of(*step.write), "5");
  EXPECT_TRUE(
      election.write_succeeded(accepted(*step.write, "6"), at(milliseconds(4010))).events.empty());
  EXPECT_EQ(election.leading_until(), at(seconds(14)).monotonic);
}

TEST(K8sLeaderElection, ALeaderThatSeesAnotherHolderStepsDownAtOnce) {
  LeaderElection election(config_for("a"));
  lead_from_scratch(election);
  auto step = election.observe(lease("b", "9", 1), at(seconds(2)));
  EXPECT_FALSE(step.write);
  EXPECT_EQ(step.events, events({{Kind::NewLeader, "b"}, {Kind::StoppedLeading, ""}}));
  EXPECT_FALSE(election.is_leader());
}

TEST(K8sLeaderElection, ALeaseDeletedUnderTheLeaderEndsItsTermAndIsRecreated) {
  LeaderElection election(config_for("a"));
  lead_from_scratch(election);
  auto step = election.observe(std::nullopt, at(seconds(2)));
  EXPECT_EQ(step.events, events({{Kind::StoppedLeading, ""}}));
  ASSERT_TRUE(step.write);
  EXPECT_EQ(step.write->kind, LeaseWrite::Kind::Create);
}

TEST(K8sLeaderElection, ReleaseStopsLeadingThenClearsTheHolder) {
  LeaderElection election(config_for("a"));
  auto held = lead_from_scratch(election);
  auto renew = election.observe(held, at(seconds(2)));
  auto renewed = accepted(*renew.write, "2");
  election.write_succeeded(renewed, at(milliseconds(2010)));

  auto step = election.release(at(seconds(3)));
  EXPECT_EQ(step.events, events({{Kind::StoppedLeading, ""}}));
  EXPECT_FALSE(election.is_leader());
  ASSERT_TRUE(step.write);
  EXPECT_EQ(step.write->kind, LeaseWrite::Kind::Update);
  EXPECT_EQ(rv_of(*step.write), "2");
  const auto& spec = spec_of(*step.write);
  EXPECT_EQ(spec.at("holderIdentity"), "");
  EXPECT_EQ(spec.at("leaseDurationSeconds"), 1);
  EXPECT_EQ(spec.at("leaseTransitions"), 0);
  EXPECT_EQ(spec.at("renewTime"), stamp(kWallBase + seconds(3)));
  EXPECT_TRUE(
      election.write_succeeded(accepted(*step.write, "3"), at(milliseconds(3010))).events.empty());
  EXPECT_TRUE(election.released());
  EXPECT_EQ(election.observed_leader(), "");
  // A released elector never campaigns again.
  EXPECT_FALSE(election.observe(lease("", "3"), at(seconds(4))).write);
  EXPECT_FALSE(election.release(at(seconds(5))).write);
}

TEST(K8sLeaderElection, ACandidateHasNothingToRelease) {
  LeaderElection election(config_for("a"));
  election.observe(lease("b", "7"), at(milliseconds(0)));
  auto step = election.release(at(seconds(1)));
  EXPECT_FALSE(step.write);
  EXPECT_TRUE(step.events.empty());
}

TEST(K8sLeaderElection, AbandonStopsLeadingWithoutTouchingTheLease) {
  LeaderElection election(config_for("a"));
  lead_from_scratch(election);
  auto step = election.abandon();
  EXPECT_FALSE(step.write);
  EXPECT_EQ(step.events, events({{Kind::StoppedLeading, ""}}));
  EXPECT_FALSE(election.observe(std::nullopt, at(seconds(1))).write);
}

TEST(K8sLeaderElection, ReportingAWriteThatWasNeverAskedForIsALogicError) {
  LeaderElection election(config_for("a"));
  EXPECT_THROW(election.write_succeeded(lease("a", "1"), at(milliseconds(0))), std::logic_error);
  EXPECT_THROW(election.write_failed(WriteFailure::Other, at(milliseconds(0))), std::logic_error);
}

TEST(K8sLeaderElection, ConfigValidationFollowsClientGo) {
  EXPECT_NO_THROW(validate(config_for("a")));
  auto no_identity = config_for("");
  EXPECT_THROW(validate(no_identity), std::invalid_argument);
  auto deadline_too_long = config_for("a");
  deadline_too_long.renew_deadline = seconds(15);
  EXPECT_THROW(validate(deadline_too_long), std::invalid_argument);
  auto retry_too_slow = config_for("a");
  retry_too_slow.retry_period = seconds(9);  // 9 s * 1.2 > 10 s
  EXPECT_THROW(validate(retry_too_slow), std::invalid_argument);
  EXPECT_NO_THROW(validate(retry_too_slow, 1.0));
  auto sub_second = config_for("a");
  sub_second.lease_duration = milliseconds(900);
  sub_second.renew_deadline = milliseconds(500);
  sub_second.retry_period = milliseconds(100);
  EXPECT_THROW(validate(sub_second), std::invalid_argument);
  EXPECT_THROW(LeaderElection{no_identity}, std::invalid_argument);
}

TEST(K8sLeaderElection, HandEditedLeaseFieldsReadAsEmpty) {
  const auto record =
      lease_record_of(json::parse(R"({"spec":{"holderIdentity":7,"leaseDurationSeconds":"x"}})"));
  EXPECT_EQ(record, LeaseRecord{});
  EXPECT_EQ(lease_record_of(json::parse(R"({"metadata":{}})")), LeaseRecord{});
}

}  // namespace
}  // namespace nvcre::k8s
