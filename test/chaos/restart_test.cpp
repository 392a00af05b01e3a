// Crash-restart (ARCHITECTURE.md "Deterministic child names ... A crash at any instant must resume
// without duplicates"): the manager is stopped abruptly three times while Certifications are in
// flight, each time at a later stage (first Workflow created, TrainJobs running, first verdict
// written), and a fresh Manager is started on the same kube-sim. Every Certification still
// completes, and kube-sim's create counters show that no child object was created twice.
//
// "Abruptly": Manager::stop() drains nothing. It ends every actor at once: in-flight reconcile
// passes are cut off wherever they are (a create may have reached the server with its answer never
// read), queued keys and unsent events are dropped. The new Manager knows only what it lists.
#include "chaos_fixture.hpp"

#include <functional>
#include <iostream>
#include <memory>

namespace nvcre::chaos {
namespace {

constexpr int kNodes = 8;
constexpr int kCertificationCount =
    6;  // each: one Workflow, one single-node Job (and TrainJob) per node

struct KillPoint {
  std::string stage;
  std::function<bool(const Progress&)> reached;
};

TEST(ChaosRestart, AbruptlyStoppedManagerIsReplacedAndNoChildIsCreatedTwice) {
  nvcre::manager::EmbeddedCluster cluster(
      cluster_options("aws:h100:" + std::to_string(kNodes), std::chrono::milliseconds(100)));
  cluster.start();
  auto& client = cluster.client();

  int generation = 1;
  auto new_manager = [&] {
    auto manager = std::make_unique<actors::Manager>(
        cluster.manager_options("chaos-restart-" + std::to_string(generation++)));
    manager->start();
    return manager;
  };
  auto manager = new_manager();

  std::set<std::string> names;
  const auto started = Clock::now();
  for (int i = 0; i < kCertificationCount; ++i) {
    names.insert("cert-" + std::to_string(i));
    client.create(kCertifications, kNamespace, certification("cert-" + std::to_string(i)));
  }

  const std::vector<KillPoint> kills{
      {"first Workflow created", [](const Progress& p) { return p.workflows >= 1; }},
      {"TrainJobs running", [](const Progress& p) { return p.train_jobs >= kNodes; }},
      {"first verdict written", [](const Progress& p) { return p.verdicts >= 1; }},
  };
  for (const auto& kill : kills) {
    Progress at_kill;
    ASSERT_TRUE(eventually(
        [&] {
          at_kill = progress(client, names);
          return kill.reached(at_kill);
        },
        std::chrono::seconds(60), std::chrono::milliseconds(10)))
        << "never reached: " << kill.stage;
    const auto stop_started = Clock::now();
    manager.reset();  // Manager::~Manager -> stop(): every actor ended at once, nothing drained
    std::cout << "[chaos] restart: killed at \"" << kill.stage << "\" after "
              << seconds_since(started) << " s (" << at_kill << "); stop took "
              << seconds_since(stop_started) << " s\n";
    // A kill after the run ended would test nothing.
    EXPECT_LT(at_kill.verdicts, names.size()) << kill.stage;
    manager = new_manager();
  }

  std::map<std::string, Verdict> all;
  ASSERT_TRUE(eventually(
      [&] {
        all = verdicts(client);
        return count_with_verdict(all, names) == names.size();
      },
      std::chrono::seconds(90), std::chrono::milliseconds(100)))
      << count_with_verdict(all, names) << "/" << names.size()
      << " Certifications reached a verdict";
  std::cout << "[chaos] restart: all " << names.size() << " Certifications done after "
            << seconds_since(started) << " s and " << kills.size() << " abrupt restarts\n";
  for (const auto& name : names) {
    EXPECT_EQ(all[name].type, "Succeeded")
        << name << ": " << all[name].reason << ": " << all[name].message;
  }
  manager.reset();

  expect_every_child_created_once(cluster, "restart", kCertificationCount, kNodes);
}

}  // namespace
}  // namespace nvcre::chaos
