// Leader election (k8s/leader_elector.hpp) against kube-sim's coordination.k8s.io/v1 Leases, with
// short timings: lease 2 s, renew deadline 1.5 s, retry period 0.2 s. Each candidate has its own
// RestClient and thread, like separate processes. Safety (never two leaders) is checked by
// sampling is_leader() of every candidate throughout; liveness only with generous deadlines, and
// the measured handover times are printed, never asserted.
#include "k8s/leader_elector.hpp"

#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace nvcre::k8s {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};
const std::string kNamespace = "kube-system";
const std::string kLeaseName = "nvcre-leader";

LeaderElectionConfig short_timings(const std::string& identity,
                                   milliseconds lease_duration = seconds(2)) {
  LeaderElectionConfig config;
  config.identity = identity;
  config.lease_namespace = kNamespace;
  config.lease_name = kLeaseName;
  config.lease_duration = lease_duration;
  config.renew_deadline = milliseconds(1500);
  config.retry_period = milliseconds(200);
  return config;
}

// One elector on its own thread with its own client.
class Candidate {
 public:
  Candidate(const std::string& server, LeaderElectionConfig config, bool rejoin = false,
            const std::function<void(LeaderElectorOptions&)>& customize = {})
      : identity_(config.identity), client_(client_config(server), client_options()) {
    LeaderElectorOptions options;
    options.election = std::move(config);
    options.rejoin_after_loss = rejoin;
    if (customize) customize(options);
    options.callbacks.on_started_leading = [this] { ++started_; };
    options.callbacks.on_stopped_leading = [this] { ++stopped_; };
    options.callbacks.on_error = [this](const std::string&) { ++errors_; };
    elector_ = std::make_unique<LeaderElector>(client_, std::move(options));
    thread_ = std::thread([this] { elector_->run(); });
  }
  ~Candidate() { stop(StopMode::Abandon); }

  void stop(StopMode mode) {
    elector_->stop(mode);
    if (thread_.joinable()) thread_.join();
  }
  bool is_leader() const { return elector_->is_leader(); }
  std::string leader() const { return elector_->leader(); }
  const std::string& identity() const { return identity_; }
  int started() const { return started_; }
  int stopped() const { return stopped_; }

 private:
  static ClientConfig client_config(const std::string& server) {
    ClientConfig config;
    config.server = server;
    config.rate_limit.qps = -1;
    return config;
  }
  static RestClientOptions client_options() {
    RestClientOptions options;
    options.timeout = milliseconds(1000);  // well below the renew deadline
    return options;
  }

  std::string identity_;
  RestClient client_;
  std::atomic<int> started_{0}, stopped_{0}, errors_{0};
  std::unique_ptr<LeaderElector> elector_;
  std::thread thread_;
};

// Samples every registered candidate until stopped and counts moments with two leaders. A pair
// counts only when p, q, p all read true in that order: a real overlap lasts at least a retry
// period, while a clean handover between two adjacent reads cannot put p back in charge.
class TwoLeaderDetector {
 public:
  TwoLeaderDetector() : thread_([this] { loop(); }) {}
  ~TwoLeaderDetector() {
    done_ = true;
    thread_.join();
  }
  void watch(std::shared_ptr<Candidate> candidate) {
    std::lock_guard lock(mutex_);
    candidates_.push_back(std::move(candidate));
  }
  void forget(const std::shared_ptr<Candidate>& candidate) {
    std::lock_guard lock(mutex_);
    std::erase(candidates_, candidate);
  }
  void forget_all() {
    std::lock_guard lock(mutex_);
    candidates_.clear();
  }
  int violations() const { return violations_; }
  int samples() const { return samples_; }

 private:
  void loop() {
    while (!done_) {
      sample();
      std::this_thread::sleep_for(milliseconds(2));
    }
  }
  void sample() {
    std::vector<std::shared_ptr<Candidate>> now;
    {
      std::lock_guard lock(mutex_);
      now = candidates_;
    }
    for (std::size_t i = 0; i < now.size(); ++i)
      for (std::size_t j = i + 1; j < now.size(); ++j) {
        const auto& p = *now[i];
        const auto& q = *now[j];
        if (p.is_leader() && q.is_leader() && p.is_leader()) ++violations_;
      }
    ++samples_;
  }

  std::mutex mutex_;
  std::vector<std::shared_ptr<Candidate>> candidates_;
  std::atomic<bool> done_{false};
  std::atomic<int> violations_{0}, samples_{0};
  std::thread thread_;
};

template <class Condition>
bool eventually(Condition condition, Clock::duration deadline = seconds(20)) {
  const auto until = Clock::now() + deadline;
  while (Clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return condition();
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class LeaderElectionIT : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = std::make_unique<sim::KubeSim>();
    sim_->start();
    ClientConfig config;
    config.server = sim_->url();
    config.rate_limit.qps = -1;
    client_ = std::make_unique<RestClient>(config);
  }
  void TearDown() override {
    detector_.forget_all();  // stops the remaining candidates while the server still answers
    client_.reset();
    sim_->stop();
  }

  std::shared_ptr<Candidate> candidate(const std::string& identity, milliseconds lease = seconds(2),
                                       bool rejoin = false) {
    auto c = std::make_shared<Candidate>(sim_->url(), short_timings(identity, lease), rejoin);
    detector_.watch(c);
    return c;
  }
  LeaseRecord lease() { return lease_record_of(client_->get(kLeases, kNamespace, kLeaseName)); }

  std::unique_ptr<sim::KubeSim> sim_;
  std::unique_ptr<RestClient> client_;
  TwoLeaderDetector detector_;
};

TEST_F(LeaderElectionIT, ExactlyOneOfTwoCandidatesLeads) {
  auto a = candidate("a");
  auto b = candidate("b");
  ASSERT_TRUE(eventually([&] { return a->is_leader() || b->is_leader(); }));
  const auto& leader = a->is_leader() ? *a : *b;
  const auto& standby = a->is_leader() ? *b : *a;
  EXPECT_TRUE(eventually([&] { return standby.leader() == leader.identity(); }));
  EXPECT_EQ(lease().holder_identity, leader.identity());
  // Several lease durations of renewals: the standby never gets in.
  std::this_thread::sleep_for(seconds(3));
  EXPECT_EQ(standby.started(), 0);
  EXPECT_EQ(detector_.violations(), 0) << "over " << detector_.samples() << " samples";
}

TEST_F(LeaderElectionIT, ACrashedLeaderIsReplacedOnceItsLeaseExpires) {
  auto a = candidate("a");
  ASSERT_TRUE(eventually([&] { return a->is_leader(); }));
  auto b = candidate("b");
  ASSERT_TRUE(eventually([&] { return b->leader() == "a"; }));
  const auto before = lease();

  a->stop(StopMode::Abandon);  // a crash: no release, the Lease still names a
  const auto crashed = Clock::now();
  EXPECT_EQ(lease().holder_identity, "a");
  ASSERT_TRUE(eventually([&] { return b->is_leader(); }));
  const double handover = seconds_since(crashed);
  std::cout << "[ measured ] crash handover: " << handover
            << " s (lease 2 s + retry 0.2 s jittered)\n";
  RecordProperty("crash_handover_seconds", std::to_string(handover));

  const auto after = lease();
  EXPECT_EQ(after.holder_identity, "b");
  EXPECT_EQ(after.lease_transitions, before.lease_transitions + 1);
  EXPECT_EQ(detector_.violations(), 0);
}

TEST_F(LeaderElectionIT, AGracefulStopHandsOverWithoutWaitingForTheLease) {
  // A 30 s lease: b can only lead within the 20 s deadline below if a really released it.
  auto a = candidate("a", seconds(30));
  ASSERT_TRUE(eventually([&] { return a->is_leader(); }));
  auto b = candidate("b", seconds(30));
  ASSERT_TRUE(eventually([&] { return b->leader() == "a"; }));

  a->stop(StopMode::Release);
  const auto released = Clock::now();
  EXPECT_FALSE(a->is_leader());
  EXPECT_EQ(a->stopped(), 1);
  ASSERT_TRUE(eventually([&] { return b->is_leader(); }, seconds(20)));
  const double handover = seconds_since(released);
  std::cout << "[ measured ] graceful handover: " << handover << " s (lease 30 s)\n";
  RecordProperty("graceful_handover_seconds", std::to_string(handover));
  EXPECT_EQ(lease().holder_identity, "b");
  EXPECT_EQ(detector_.violations(), 0);
}

// The clock and sleep seams: time runs only when the elector sleeps, so stepping down after the
// renew deadline is checked without waiting for it in real time.
TEST_F(LeaderElectionIT, ALeaderThatCannotRenewStepsDownAtTheRenewDeadline) {
  std::atomic<std::int64_t> fake_ns{0};
  const auto origin = Clock::now();
  const auto wall_origin = std::chrono::system_clock::now();
  auto a = std::make_shared<Candidate>(
      sim_->url(), short_timings("a"), false, [&](LeaderElectorOptions& o) {
        o.clock = [&] {
          const auto offset = std::chrono::nanoseconds(fake_ns.load());
          using WallDuration = std::chrono::system_clock::duration;
          return ElectionTime{origin + offset,
                              wall_origin + std::chrono::duration_cast<WallDuration>(offset)};
        };
        o.sleep = [&](std::chrono::nanoseconds d) {
          fake_ns += d.count();
          std::this_thread::sleep_for(milliseconds(1));  // real time only to stay polite
        };
      });
  ASSERT_TRUE(eventually([&] { return a->is_leader(); }));
  sim::FaultPlan plan;
  plan.seed = 5;
  sim::VerbFaults down;
  down.errors = {sim::ErrorRule{500, 1.0, 0}};
  plan.verbs["*"] = down;
  const auto cut_off = fake_ns.load();
  sim_->api().faults().set_plan(plan);

  ASSERT_TRUE(eventually([&] { return a->stopped() == 1; }));
  EXPECT_FALSE(a->is_leader());
  std::cout << "[ measured ] stepped down after " << (fake_ns.load() - cut_off) / 1'000'000
            << " ms of fake time without a successful renewal (renew deadline 1500 ms)\n";
  a->stop(StopMode::Release);  // run() has returned already (rejoin off); the release failed too
  sim_->api().faults().set_plan({});
  EXPECT_EQ(lease().holder_identity, "a");  // nothing could clear it: a standby waits it out
}

TEST_F(LeaderElectionIT, ConflictsAndServerErrorsOnLeasesNeverYieldTwoLeaders) {
  sim::FaultPlan plan;
  plan.seed = 7;
  sim::VerbFaults faults;
  faults.errors = {sim::ErrorRule{409, 0.2, 0}, sim::ErrorRule{500, 0.15, 0}};
  for (const char* verb : {"get", "create", "update"}) plan.verbs[verb] = faults;
  sim_->api().faults().set_plan(plan);

  // Three handovers, alternating crash and graceful stop, each to a fresh candidate.
  auto current = candidate("c0", seconds(2), true);
  auto other = candidate("c1", seconds(2), true);
  int next_id = 2;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(eventually([&] { return current->is_leader() || other->is_leader(); }, seconds(30)))
        << "round " << round;
    if (other->is_leader()) std::swap(current, other);
    const auto mode = round % 2 == 0 ? StopMode::Abandon : StopMode::Release;
    const auto stopped = Clock::now();
    current->stop(mode);
    detector_.forget(current);
    ASSERT_TRUE(eventually([&] { return other->is_leader(); }, seconds(30))) << "round " << round;
    std::cout << "[ measured ] handover under faults ("
              << (mode == StopMode::Abandon ? "crash" : "release")
              << "): " << seconds_since(stopped) << " s\n";
    current = std::move(other);
    other = candidate("c" + std::to_string(next_id++), seconds(2), true);
  }
  std::this_thread::sleep_for(seconds(2));  // both running, faults still on
  sim_->api().faults().set_plan({});

  const auto& injected = sim_->api().faults();
  const auto conflicts = injected.counter("Conflict", sim::Verb::Update) +
                         injected.counter("Conflict", sim::Verb::Get);
  const auto errors = injected.counter("InternalError", sim::Verb::Update) +
                      injected.counter("InternalError", sim::Verb::Get);
  std::cout << "[ measured ] injected: " << conflicts << " conflicts, " << errors
            << " internal errors; " << detector_.samples() << " samples\n";
  EXPECT_GT(conflicts, 0u);
  EXPECT_GT(errors, 0u);
  EXPECT_EQ(detector_.violations(), 0) << "over " << detector_.samples() << " samples";
}

}  // namespace
}  // namespace nvcre::k8s
