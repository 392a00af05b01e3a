// Leader election with two real managers on one kube-sim (lease 2 s, renew deadline 1.5 s, retry
// 0.2 s, as in test/integration/leader_election_test.cpp). Each manager sends its own User-Agent,
// and kube-sim counts requests per User-Agent and verb, so "only the leader writes" is read off
// the server: while the first manager leads, the standby has sent reads (it watches and polls the
// Lease) but not a single create, update, patch or delete. Then the leader is killed mid-run
// without releasing its Lease; the standby takes over once the Lease expires (the handover time is
// measured and printed), finishes every Certification, and no child object is created twice.
#include "chaos_fixture.hpp"

#include <iostream>
#include <memory>

namespace nvcre::chaos {
namespace {

using std::chrono::milliseconds;

constexpr int kNodes = 8;
constexpr int kCertificationCount = 6;
const k8s::ResourceRef kLeases{"coordination.k8s.io", "v1", "leases", true};
const std::string kLeaseName = "nvcre-chaos-leader";

k8s::LeaderElectionConfig election(const std::string& identity) {
  k8s::LeaderElectionConfig config;
  config.identity = identity;
  config.lease_namespace = kNamespace;
  config.lease_name = kLeaseName;
  config.lease_duration = std::chrono::seconds(2);
  config.renew_deadline = milliseconds(1500);
  config.retry_period = milliseconds(200);
  return config;
}

std::string user_agent_of(const std::string& identity) { return "nvcre-chaos/" + identity; }

std::unique_ptr<actors::Manager> start_candidate(nvcre::manager::EmbeddedCluster& cluster,
                                                 const std::string& identity) {
  auto options = cluster.manager_options(identity);
  options.user_agent = user_agent_of(identity);
  options.leader_elect = true;
  options.election = election(identity);
  options.abandon_lease_on_stop = true;  // a killed leader leaves its Lease to expire
  auto manager = std::make_unique<actors::Manager>(std::move(options));
  manager->start();
  return manager;
}

TEST(ChaosLeaderElection, OnlyTheLeaderWritesAndTheStandbyTakesOverAfterTheLeaderIsKilled) {
  nvcre::manager::EmbeddedCluster cluster(
      cluster_options("aws:h100:" + std::to_string(kNodes), milliseconds(100)));
  cluster.start();
  auto& client = cluster.client();

  // The first manager takes the empty Lease alone; the second starts once it is held (as in a
  // rolling update), so every write the standby could make is a real standby write, not a lost
  // race for an empty Lease.
  auto leader = start_candidate(cluster, "manager-a");
  ASSERT_TRUE(eventually([&] { return leader->leading(); }, std::chrono::seconds(20)));
  auto standby = start_candidate(cluster, "manager-b");
  ASSERT_TRUE(eventually([&] { return standby->synced(); }, std::chrono::seconds(20)));
  ASSERT_TRUE(eventually(
      [&] {
        return cluster.sim().api().request_log().requests_by(user_agent_of("manager-b"), "get") > 0;
      },
      std::chrono::seconds(20)))
      << "the standby never read the Lease";

  std::set<std::string> names;
  const auto started = Clock::now();
  for (int i = 0; i < kCertificationCount; ++i) {
    names.insert("cert-" + std::to_string(i));
    client.create(kCertifications, kNamespace, certification("cert-" + std::to_string(i)));
  }

  // Mid-run: TrainJobs are running and no Certification is finished yet. All the while the
  // standby stays a standby.
  Progress at_kill;
  bool standby_led = false;
  ASSERT_TRUE(eventually(
      [&] {
        standby_led = standby_led || standby->leading();
        at_kill = progress(client, names);
        return at_kill.train_jobs >= kNodes;
      },
      std::chrono::seconds(60), milliseconds(10)));
  EXPECT_FALSE(standby_led);
  EXPECT_TRUE(leader->leading());
  EXPECT_LT(at_kill.verdicts, names.size()) << "the run was over before the kill";

  const auto leader_writes = writes_by(cluster, user_agent_of("manager-a"));
  const auto standby_writes = writes_by(cluster, user_agent_of("manager-b"));
  const auto standby_reads =
      cluster.sim().api().request_log().requests_by(user_agent_of("manager-b"), "get") +
      cluster.sim().api().request_log().requests_by(user_agent_of("manager-b"), "list") +
      cluster.sim().api().request_log().requests_by(user_agent_of("manager-b"), "watch");
  std::cout << "[chaos] leader: before the kill (" << at_kill << "): leader writes "
            << leader_writes << ", standby writes " << standby_writes << ", standby reads "
            << standby_reads << "\n";
  EXPECT_GT(leader_writes, 0u);
  EXPECT_GT(standby_reads,
            0u);  // the standby is counted under its own User-Agent, and it does talk
  EXPECT_EQ(standby_writes, 0u) << "only the leader may write";

  const auto killed_at = Clock::now();
  leader.reset();  // stop() with abandon_lease_on_stop: the Lease still names manager-a
  const double stop_seconds = seconds_since(killed_at);
  const auto killed_leader_writes = writes_by(cluster, user_agent_of("manager-a"));
  EXPECT_EQ(k8s::lease_record_of(client.get(kLeases, kNamespace, kLeaseName)).holder_identity,
            "manager-a");

  // Liveness bound, not a performance check: the standby may take the Lease lease_duration (2 s)
  // after it last saw it renewed, plus up to one jittered retry period; a renew deadline (1.5 s)
  // plus 10 s of slack for a loaded 2-core machine on top keeps this from ever timing a healthy
  // run.
  const bool took_over =
      eventually([&] { return standby->leading(); }, std::chrono::milliseconds(2000 + 1500 + 10000),
                 milliseconds(5));
  const double handover = seconds_since(killed_at);
  std::cout << "[chaos] leader: manager-a killed (stop took " << stop_seconds
            << " s); manager-b leading after " << handover << " s (lease 2 s)\n";
  ASSERT_TRUE(took_over);
  EXPECT_EQ(k8s::lease_record_of(client.get(kLeases, kNamespace, kLeaseName)).holder_identity,
            "manager-b");

  std::map<std::string, Verdict> all;
  ASSERT_TRUE(eventually(
      [&] {
        all = verdicts(client);
        return count_with_verdict(all, names) == names.size();
      },
      std::chrono::seconds(90), milliseconds(100)))
      << count_with_verdict(all, names) << "/" << names.size()
      << " Certifications reached a verdict";
  std::cout << "[chaos] leader: all " << names.size() << " Certifications done after "
            << seconds_since(started) << " s; manager-b wrote "
            << writes_by(cluster, user_agent_of("manager-b")) << " times\n";
  for (const auto& name : names) {
    EXPECT_EQ(all[name].type, "Succeeded")
        << name << ": " << all[name].reason << ": " << all[name].message;
  }
  EXPECT_GT(writes_by(cluster, user_agent_of("manager-b")), 0u);
  // The killed leader stays dead: only requests already on the wire when it was stopped land
  // afterwards. Its stop abandons calls in flight instead of waiting for their answers, so that is
  // at most one per API worker, one from the event recorder's worker and one Lease renewal.
  const std::size_t on_the_wire = actors::ManagerOptions{}.api_workers + 2;
  EXPECT_LE(writes_by(cluster, user_agent_of("manager-a")), killed_leader_writes + on_the_wire);
  standby.reset();

  expect_every_child_created_once(cluster, "leader", kCertificationCount, kNodes);
}

}  // namespace
}  // namespace nvcre::chaos
