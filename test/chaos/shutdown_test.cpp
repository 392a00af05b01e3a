// Graceful shutdown when the API server has gone away: the real nvcre-manager binary is busy with
// Certifications in flight (client-side rate limit on, so requests queue behind it), kube-sim stops
// serving (its connections stay open and nothing answers, as with a frozen or partitioned API
// server), and the manager gets SIGTERM. It must stop its controllers, abandon its API calls, give
// the Lease one short try and exit 0 on its own, well inside Kubernetes' 30 s grace period.
#include "chaos_fixture.hpp"

#include "test/support/child_process.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>

namespace nvcre::chaos {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kNodes = 8;
constexpr int kCertificationCount = 80;  // one Workflow, Job and TrainJob each: a backlog of writes
// Liveness bound, not a performance check: the manager aims at a few seconds.
constexpr auto kExitDeadline = seconds(15);

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

void expect_prompt_exit_after_api_server_stops(const std::vector<std::string>& manager_args) {
  // The TrainJobs never finish: every Certification stays in flight.
  nvcre::manager::EmbeddedCluster cluster(
      cluster_options("aws:h100:" + std::to_string(kNodes), std::chrono::hours(1)));
  cluster.start();
  auto& client = cluster.client();
  testing::ManagerChild manager(NVCRE_MANAGER_BINARY, cluster.sim().url(), manager_args,
                                "shutdown");

  for (int i = 0; i < kCertificationCount; ++i) {
    client.create(kCertifications, kNamespace,
                  certification("cert-" + std::to_string(i), {node_name(i % kNodes)}));
  }
  // Mid-run: children are being created, most are still to come.
  std::size_t workflows = 0;
  ASSERT_TRUE(eventually(
      [&] {
        if (!manager.running()) return true;
        workflows = count_items(client, kWorkflows);
        return workflows >= 5;
      },
      seconds(60), milliseconds(50)))
      << manager.log();
  ASSERT_TRUE(manager.running()) << manager.log();

  cluster.sim().stop();  // stops answering; the manager's connections stay open
  manager.signal(SIGTERM);
  const auto signalled = Clock::now();
  const bool exited =
      eventually([&] { return !manager.running(); }, kExitDeadline, milliseconds(20));
  const double exit_seconds = seconds_since(signalled);
  std::cout << "[chaos] shutdown: " << workflows
            << " Workflows created when the API server stopped; "
            << (exited ? "exited " : "still running ") << exit_seconds << " s after SIGTERM\n";

  ASSERT_TRUE(exited) << "nvcre-manager still running " << exit_seconds << " s after SIGTERM\n"
                      << manager.log();
  const int status = *manager.exited();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describe_status(status) << "\n"
                                                             << manager.log();
  const std::string log = manager.log();
  EXPECT_NE(log.find("shutting down (signal)"), std::string::npos) << log;
  EXPECT_NE(log.find("shutdown complete"), std::string::npos) << log;
}

TEST(ChaosShutdown, SigtermAfterTheApiServerStoppedExitsPromptly) {
  expect_prompt_exit_after_api_server_stops({});
}

// With the Lease held: the renewal in flight is abandoned, the release gets one short try, and a
// released Lease is no lost leadership (exit 0, not 1).
TEST(ChaosShutdown, SigtermAfterTheApiServerStoppedExitsPromptlyWithLeaderElection) {
  expect_prompt_exit_after_api_server_stops(
      {"--leader-elect", "--leader-election-namespace", kNamespace});
}

}  // namespace
}  // namespace nvcre::chaos
