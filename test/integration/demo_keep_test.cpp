// `nvcre-demo --keep` as the README tells a user to follow it: the demo runs its Certification
// (one faulty node), keeps kube-sim and the manager up and prints the nvcrectl command that reads
// the report; that command, run exactly as printed, prints the failed report and exits 1; the
// README's `certification run` against the same cluster, then the report typed for it; Ctrl-C
// (SIGINT) then stops the demo cleanly (exit 0, its kubeconfig directory removed).
#include "test/support/child_process.hpp"
#include "test/support/cli_workspace.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>

namespace {

namespace fs = std::filesystem;

using nvcre::testing::read_text;

// The first line of `text` holding `marker`, without its leading blanks ("" when none).
std::string line_with(const std::string& text, const std::string& marker) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(marker) != std::string::npos) return line.substr(line.find_first_not_of(' '));
  return {};
}

class DemoKeep : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ = fs::temp_directory_path() / ("nvcre-demo-keep-" + std::to_string(random()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (pid_ > 0 && !status_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }

  // The demo's wait status once it has ended (reaped here), nullopt while it runs.
  std::optional<int> exited() {
    int status = 0;
    if (!status_ && waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
    return status_;
  }

  fs::path dir_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

TEST_F(DemoKeep, PrintedReportCommandWorksAndCtrlCStopsTheDemo) {
  const std::string source = NVCRE_SOURCE_DIR;
  pid_ = nvcre::testing::spawn_with_log(
      {NVCRE_DEMO_BINARY, "--keep", "--cluster", "aws:h100:8", "--trainer-step-ms", "20",
       "--certification", source + "/examples/demo-certification.yaml", "--crds",
       source + "/deploy/crds"},
      (dir_ / "demo.err").string(), (dir_ / "demo.out").string());

  // Until the demo prints the command (it ends only by a signal or an error).
  std::string command;
  for (int i = 0; i < 3000 && command.empty() && !exited(); ++i) {
    command = line_with(read_text(dir_ / "demo.out"), " certification report ");
    if (command.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(command.empty()) << read_text(dir_ / "demo.out") << read_text(dir_ / "demo.err");
  ASSERT_FALSE(exited());
  EXPECT_NE(command.find("certification report demo-burnin -n gpu-validation --kubeconfig "),
            std::string::npos)
      << command;
  const std::string kubeconfig = command.substr(command.rfind(' ') + 1);
  EXPECT_TRUE(fs::exists(kubeconfig)) << kubeconfig;

  const std::string run =
      command + " >" + (dir_ / "report.out").string() + " 2>" + (dir_ / "report.err").string();
  const int status = std::system(run.c_str());
  const std::string report = read_text(dir_ / "report.out");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1)
      << status << "\n"
      << report << read_text(dir_ / "report.err");
  EXPECT_NE(report.find("  Name:      demo-burnin\n"), std::string::npos) << report;
  EXPECT_NE(report.find("│    - gpu-node-05"), std::string::npos) << report;
  EXPECT_NE(report.find("│  Result:       FAILED"), std::string::npos) << report;
  EXPECT_EQ(read_text(dir_ / "report.err"), "Error: certification \"demo-burnin\" failed\n");

  // The README's run command against the kept cluster, then the report the user types for it.
  const std::string nvcrectl = std::string(NVCRECTL_BINARY) + " certification ";
  const std::string typed = " -n typed --kubeconfig " + kubeconfig + " >" +
                            (dir_ / "typed.out").string() + " 2>" + (dir_ / "typed.err").string();
  const int run_status = std::system((nvcrectl +
                                      "run --category communication/nccl-all-reduce "
                                      "--nodes-per-job 4 --name typed-run --wait --timeout 2m" +
                                      typed)
                                         .c_str());
  EXPECT_TRUE(WIFEXITED(run_status) && WEXITSTATUS(run_status) == 1)
      << run_status << "\n"
      << read_text(dir_ / "typed.err");
  EXPECT_NE(
      read_text(dir_ / "typed.err").find("Certification typed-run created in namespace typed."),
      std::string::npos)
      << read_text(dir_ / "typed.err");
  const int report_status = std::system((nvcrectl + "report typed-run" + typed).c_str());
  const std::string typed_report = read_text(dir_ / "typed.out");
  EXPECT_TRUE(WIFEXITED(report_status) && WEXITSTATUS(report_status) == 1) << report_status;
  EXPECT_NE(typed_report.find("  Name:      typed-run\n"), std::string::npos) << typed_report;
  EXPECT_NE(typed_report.find("│  Result:       FAILED"), std::string::npos) << typed_report;

  ASSERT_EQ(kill(pid_, SIGINT), 0);
  for (int i = 0; i < 600 && !exited(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(exited()) << "the demo did not stop after SIGINT\n" << read_text(dir_ / "demo.err");
  EXPECT_TRUE(WIFEXITED(*status_) && WEXITSTATUS(*status_) == 0) << *status_ << "\n"
                                                                 << read_text(dir_ / "demo.err");
  EXPECT_NE(read_text(dir_ / "demo.out").find("stopping kube-sim and the manager"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(kubeconfig)) << "the demo left its kubeconfig behind";
}

}  // namespace
