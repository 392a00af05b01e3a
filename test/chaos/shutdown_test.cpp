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

// nvcre-manager as its own process, its stderr in a log file; killed and reaped if still running.
class ManagerProcess {
 public:
  ManagerProcess(const std::string& server_url, std::vector<std::string> extra_args) {
    std::random_device random;
    dir_ = std::filesystem::temp_directory_path() / ("nvcre-shutdown-" + std::to_string(random()));
    std::filesystem::create_directories(dir_);
    const auto kubeconfig = (dir_ / "kubeconfig").string();
    log_ = (dir_ / "manager.log").string();
    nvcre::testing::write_sim_kubeconfig(kubeconfig, server_url);
    std::vector<std::string> args{
        NVCRE_MANAGER_BINARY, "--kubeconfig",           kubeconfig, "--health-probe-bind-address",
        "127.0.0.1:0",        "--metrics-bind-address", "0"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    pid_ = nvcre::testing::spawn_with_log(args, log_);
  }

  ~ManagerProcess() {
    if (!status_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  bool running() { return !exited(); }
  void signal(int number) const { ::kill(pid_, number); }

  // The wait status once the process has ended (reaped here), nullopt while it runs.
  std::optional<int> exited() {
    if (!status_) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
    }
    return status_;
  }

  std::string log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::filesystem::path dir_;
  std::string log_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

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
  ManagerProcess manager(cluster.sim().url(), manager_args);

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
