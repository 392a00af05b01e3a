// The supervised shell: the manager monitors every top-level actor, and one that dies outside
// stop() makes it unready, is named with its exit reason in failure() and in on_actor_down (once),
// and answers /readyz with 503; a normal stop reports nothing. Driven in-process through
// Manager::kill_actor against the embedded kube-sim, then through the real nvcre-manager binary
// (--fault-kill-actor), which must exit 1 after a clean stop so a Deployment restarts it.
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/child_process.hpp"
#include "k8s/api_error.hpp"
#include "manager/probe_server.hpp"
#include "test/support/eventually.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <sstream>

namespace nvcre::actors {
namespace {

using nvcre::test::eventually;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kNamespace = "supervision";

// GET /readyz on a loopback port: its status (the client throws an ApiError for a 503), or 0
// when nothing answers.
int readyz_status(unsigned short port) {
  k8s::ClientConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  config.rate_limit.qps = -1;
  k8s::RestClientOptions options;
  options.max_retries = 0;
  options.timeout = seconds(2);
  try {
    k8s::RestClient probe(config, options);
    return probe.request({"GET", "/readyz", {}, "", ""}).status;
  } catch (const k8s::ApiError& error) {
    return error.code;
  } catch (const std::exception&) {
    return 0;
  }
}

// What on_actor_down was called with, in order.
class DownLog {
 public:
  void add(const std::string& name, const std::string& reason) {
    std::lock_guard lock(mutex_);
    downs_.emplace_back(name, reason);
  }
  std::vector<std::pair<std::string, std::string>> downs() const {
    std::lock_guard lock(mutex_);
    return downs_;
  }
  std::size_t count(const std::string& name) const {
    auto all = downs();
    return std::count_if(all.begin(), all.end(),
                         [&](const auto& down) { return down.first == name; });
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> downs_;
};

std::string describe(const std::vector<std::pair<std::string, std::string>>& downs) {
  std::string out;
  for (const auto& [name, reason] : downs) out += "  " + name + ": " + reason + "\n";
  return out.empty() ? "  (none)\n" : out;
}

class ManagerSupervision : public ::testing::Test {
 protected:
  void SetUp() override {
    manager::EmbeddedClusterOptions options;
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.namespaces = {kNamespace};
    cluster_ = std::make_unique<manager::EmbeddedCluster>(options);
    cluster_->start();
  }
  void TearDown() override {
    if (probes_) probes_->stop();
    manager_.reset();
    cluster_->stop();
  }

  // The manager with leader election (so the elector is supervised too) and /readyz wired to
  // ready() as the binary wires it; returns once ready.
  void start_ready_manager() {
    ManagerOptions options = cluster_->manager_options("supervision");
    options.leader_elect = true;
    options.election.identity = "supervision";
    options.election.lease_namespace = kNamespace;
    options.election.lease_name = "nvcre-supervision";
    options.election.lease_duration = seconds(2);
    options.election.renew_deadline = milliseconds(1500);
    options.election.retry_period = milliseconds(200);
    options.on_actor_down = [this](const std::string& name, const std::string& reason) {
      downs_.add(name, reason);
    };
    manager_ = std::make_unique<Manager>(options);
    probes_ =
        std::make_unique<manager::ProbeServer>("127.0.0.1:0", [this] { return manager_->ready(); });
    probes_->start();
    manager_->start();
    ASSERT_TRUE(eventually([&] { return manager_->ready(); })) << "manager never became ready";
    ASSERT_EQ(readyz_status(probes_->port()), 200);
  }

  // Kills `name` and checks everything a death outside stop() must do.
  void expect_death_reported(const std::string& name) {
    const std::string reason = "injected by the supervision test";
    ASSERT_TRUE(manager_->kill_actor(name, reason)) << name;
    EXPECT_TRUE(eventually([&] { return !manager_->ready(); }, seconds(10)))
        << name << " died and the manager stays ready";
    EXPECT_TRUE(eventually([&] { return readyz_status(probes_->port()) == 503; }, seconds(10)));
    ASSERT_TRUE(eventually([&] { return downs_.count(name) == 1; }, seconds(10)))
        << describe(downs_.downs());
    const auto failure = manager_->failure();
    ASSERT_TRUE(failure.has_value());
    std::cout << "[supervision] " << *failure << "\n";
    EXPECT_EQ(failure->rfind(name + " exited: ", 0), 0u) << *failure;
    EXPECT_NE(failure->find(reason), std::string::npos) << *failure;
    const auto downs = downs_.downs();
    EXPECT_EQ(downs.front().first, name) << describe(downs);
    EXPECT_NE(downs.front().second.find(reason), std::string::npos) << describe(downs);
    // The stop that follows ends every other actor: none of that is a failure.
    manager_->stop();
    EXPECT_EQ(downs_.count(name), 1u) << describe(downs_.downs());
    EXPECT_EQ(manager_->failure(), failure);
  }

  std::unique_ptr<manager::EmbeddedCluster> cluster_;
  DownLog downs_;
  std::unique_ptr<Manager> manager_;
  std::unique_ptr<manager::ProbeServer> probes_;
};

TEST_F(ManagerSupervision, EveryTopLevelActorIsSupervisedUnderItsName) {
  start_ready_manager();
  const auto names = manager_->actor_names();
  for (const char* expected :
       {"api_client", "api_client/events", "event_recorder", "store", "platform_detector",
        "catalog_resolver/0", "catalog_resolver/1", "workflow_assembler/0", "workflow_assembler/1",
        "reflector/v1/Node", "reflector/nvcre.nvidia.com/v1alpha1/Certification",
        "controller/certification", "controller/workloadrun", "controller/workflow",
        "controller/job", "leader_elector"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
  EXPECT_FALSE(manager_->kill_actor("no-such-actor", "typo"));
  EXPECT_TRUE(manager_->ready());
}

TEST_F(ManagerSupervision, ADeadStoreFailsReadinessAndIsReportedOnce) {
  start_ready_manager();
  expect_death_reported("store");
}

TEST_F(ManagerSupervision, ADeadControllerFailsReadinessAndIsReportedOnce) {
  start_ready_manager();
  expect_death_reported("controller/certification");
}

TEST_F(ManagerSupervision, ADeadReflectorFailsReadinessAndIsReportedOnce) {
  start_ready_manager();
  expect_death_reported("reflector/v1/Node");
}

TEST_F(ManagerSupervision, ADeadLeaderElectorFailsReadinessAndIsReportedOnce) {
  start_ready_manager();
  expect_death_reported("leader_elector");
}

TEST_F(ManagerSupervision, AStopIsNoFailure) {
  start_ready_manager();
  manager_->stop();
  EXPECT_EQ(manager_->failure(), std::nullopt);
  EXPECT_TRUE(downs_.downs().empty()) << describe(downs_.downs());
  EXPECT_FALSE(manager_->kill_actor("store", "after the stop"));
}

// The ephemeral port of the binary's /healthz and /readyz, once it has logged it.
std::optional<unsigned short> probe_port(const testing::ManagerChild& manager) {
  static const std::regex line(R"(health probes on port (\d+))");
  std::smatch match;
  const std::string text = manager.log();
  if (!std::regex_search(text, match, line)) return std::nullopt;
  return static_cast<unsigned short>(std::stoi(match[1]));
}

bool exited_with(const std::optional<int>& status, int code) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}

TEST_F(ManagerSupervision, TheBinaryExitsOneWhenAnActorDies) {
  // The kill comes late enough for the caches to sync first (readiness is seen going 200 -> down).
  testing::ManagerChild manager(NVCRE_MANAGER_BINARY, cluster_->sim().url(),
                                {"--fault-kill-actor", "store", "--fault-kill-after", "4s"},
                                "supervision");
  std::optional<unsigned short> port;
  ASSERT_TRUE(eventually([&] { return (port = probe_port(manager)).has_value(); }, seconds(10)))
      << manager.log();
  ASSERT_TRUE(eventually([&] { return readyz_status(*port) == 200; }, seconds(4), milliseconds(20)))
      << manager.log();
  // From 200 it goes to 503, then nothing answers once the process is gone; never 200 again.
  bool ready_again = false;
  int unready_answers = 0;
  ASSERT_TRUE(eventually(
      [&] {
        if (manager.exited()) return true;
        // The death is recorded before it is logged, so a probe sent after the line is seen must
        // not answer 200 (a probe sent before it may still have been answered 200).
        const bool died = manager.log().find("actor store exited") != std::string::npos;
        const int status = readyz_status(*port);
        if (died) ready_again |= status == 200;
        unready_answers += status == 503;
        return false;
      },
      seconds(20), milliseconds(5)))
      << "still running 16 s after the kill\n"
      << manager.log();
  EXPECT_FALSE(ready_again) << manager.log();
  // The binary answers 503 from the death until its stop ends the probe server (about a tenth
  // of a second: the main loop's poll, then the stop); polled every few milliseconds, it is seen.
  std::cout << "[supervision] /readyz answered 503 " << unready_answers
            << " times before the exit\n";
  EXPECT_GT(unready_answers, 0) << manager.log();
  EXPECT_TRUE(exited_with(manager.exited(), 1)) << manager.log();
  const std::string log = manager.log();
  EXPECT_NE(log.find("actor store exited: "), std::string::npos) << log;
  EXPECT_NE(log.find("fault injection (--fault-kill-actor)"), std::string::npos) << log;
  EXPECT_NE(log.find("shutting down (actor failed: store exited"), std::string::npos) << log;
  EXPECT_NE(log.find("shutdown complete"), std::string::npos) << log;
}

TEST_F(ManagerSupervision, TheBinaryRefusesAnUnknownFaultTarget) {
  testing::ManagerChild manager(NVCRE_MANAGER_BINARY, cluster_->sim().url(),
                                {"--fault-kill-actor", "stroe"}, "supervision");
  ASSERT_TRUE(eventually([&] { return manager.exited().has_value(); }, seconds(20)))
      << manager.log();
  EXPECT_TRUE(exited_with(manager.exited(), 1)) << manager.log();
  EXPECT_NE(manager.log().find("no top-level actor named \"stroe\" (known: api_client, "),
            std::string::npos)
      << manager.log();
}

}  // namespace
}  // namespace nvcre::actors
