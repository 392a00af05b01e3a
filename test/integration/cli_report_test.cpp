// `nvcrectl certification report` as users run it: the real binary, a kubeconfig for an embedded
// kube-sim with the real manager on it, and a passed, a failed, a running and a missing
// Certification. Checks the text on stdout, the JSON (stdout and --results-file), the JUnit
// (parsed by python3's XML parser), the messages on stderr and the exit status.
#include "test/support/cli_workspace.hpp"
#include "test/support/certification_object.hpp"
#include "test/support/embedded_manager.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/wait.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using nvcre::testing::kCertifications;

json::value certification(const std::string& name, json::object options = {{"nodesPerJob", 4}}) {
  return nvcre::testing::one_category_certification(name, std::move(options));
}

using nvcre::testing::CliRun;
using nvcre::testing::read_text;

class CliReport : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void start_cluster(manager::EmbeddedClusterOptions options) {
    start(std::move(options));
    cli_.open("nvcre-cli-report", cluster_->sim().url());
    dir_ = cli_.dir();
  }
  void TearDown() override {
    EmbeddedManagerTest::TearDown();
    cli_.close();
  }

  // nvcrectl certification report <args> --kubeconfig <sim>, stdout and stderr captured.
  CliRun report(const std::string& args) { return cli_.nvcrectl("certification report " + args); }
  std::string parse_junit(const fs::path& file) { return cli_.parse_junit(file); }

  void wait_for_category_status(const std::string& name, const std::string& status) {
    for (int i = 0; i < 900; ++i) {
      const json::value cert = client_->get(kCertifications, "it", name);
      const auto* statuses = cert.as_object().if_contains("status");
      if (statuses != nullptr) {
        const auto* categories = statuses->as_object().if_contains("categoryStatuses");
        if (categories != nullptr && !categories->as_array().empty() &&
            categories->as_array()[0].at("status") == status.c_str())
          return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << name << " never reached category status " << status;
  }

  nvcre::testing::CliWorkspace cli_;
  fs::path dir_;
};

TEST_F(CliReport, PassedCertificationExitsZeroWithTextJsonAndJUnit) {
  start_cluster({});
  client_->create(kCertifications, "it", certification("healthy"));
  ASSERT_EQ(wait_for_verdict("healthy").type, "Succeeded");

  const CliRun run = report("healthy -n it --results-file " + (dir_ / "r.json").string() +
                            " --junit-file " + (dir_ / "r.xml").string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("  Name:      healthy\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│  communication/nccl-all-reduce"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│  Status:    Succeeded"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│  Result:       PASSED"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("Results written to " + (dir_ / "r.json").string()), std::string::npos);

  const json::value results = json::parse(read_text(dir_ / "r.json"));
  EXPECT_EQ(results.at("name"), "healthy");
  EXPECT_EQ(results.at("result"), "PASSED");
  EXPECT_EQ(results.at("totalNodes"), 8);
  EXPECT_EQ(results.at("categories").at(0).at("status"), "Succeeded");
  EXPECT_EQ(results.at("categories").at(0).at("jobs"), 2);
  EXPECT_TRUE(results.at("failedNodes").is_null());
  EXPECT_EQ(parse_junit(dir_ / "r.xml"), "1 1 0 0 nccl-all-reduce");

  const CliRun json_run = report("healthy -n it -o json");
  EXPECT_EQ(json_run.exit_code, 0) << json_run.err;
  EXPECT_EQ(json::parse(json_run.out), results);
}

TEST_F(CliReport, FailedCertificationNamesTheNodeAndExitsOne) {
  manager::EmbeddedClusterOptions options;
  options.faulty_nodes = {"gpu-node-02=XID 79: GPU has fallen off the bus"};
  start_cluster(options);
  client_->create(kCertifications, "it", certification("faulty"));
  ASSERT_EQ(wait_for_verdict("faulty").type, "Failed");

  const CliRun run =
      report("faulty -n it --results-file " + (dir_ / "r.json").string() + " --junit-file " +
             (dir_ / "r.xml").string() + " --html " + (dir_ / "r.html").string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("HTML report written to " + (dir_ / "r.html").string()), std::string::npos)
      << run.err;
  // The page's node grid: the faulty node red, with its reason on hover.
  const std::string page = read_text(dir_ / "r.html");
  EXPECT_NE(page.find("<div class=\"node failed\" title=\"gpu-node-02: Failed&#10;"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("XID 79: GPU has fallen off the bus"), std::string::npos);
  EXPECT_NE(run.err.find("Error: certification \"faulty\" failed\n"), std::string::npos) << run.err;
  EXPECT_NE(run.out.find("│  Status:    Failed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│  Failed Groups:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│    - gpu-node-02"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│  Result:       FAILED"), std::string::npos) << run.out;

  const json::value results = json::parse(read_text(dir_ / "r.json"));
  EXPECT_EQ(results.at("result"), "FAILED");
  // The faulty node's group failed as a whole; the healthy group's nodes are not listed.
  const auto& groups = results.at("categories").at(0).at("failedGroups").as_array();
  ASSERT_EQ(groups.size(), 1u) << json::serialize(results);
  EXPECT_FALSE(groups[0].at("reason").as_string().empty()) << json::serialize(groups);
  EXPECT_EQ(results.at("failedNodes"), groups[0].at("nodes"));
  const auto& failed = results.at("failedNodes").as_array();
  EXPECT_NE(std::find(failed.begin(), failed.end(), json::value("gpu-node-02")), failed.end());
  EXPECT_EQ(failed.size(), 4u);
  EXPECT_EQ(parse_junit(dir_ / "r.xml"), "1 1 1 0 nccl-all-reduce");
}

TEST_F(CliReport, SlowGroupIsLowAndItsThresholdViolationIsTheReason) {
  manager::EmbeddedClusterOptions options;
  options.slow_nodes = {"gpu-node-02=120"};
  start_cluster(options);
  client_->create(
      kCertifications, "it",
      certification("slow", json::object{{"nodesPerJob", 4},
                                         {"thresholds", {{"busBandwidthGBps", "value >= 300"}}}}));
  ASSERT_EQ(wait_for_verdict("slow").type, "Failed");

  const CliRun run = report("slow -n it -o json");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("Error: certification \"slow\" failed\n"), std::string::npos) << run.err;
  const json::value results = json::parse(run.out);
  const auto& category = results.at("categories").at(0);
  const auto& groups = category.at("failedGroups").as_array();
  ASSERT_EQ(groups.size(), 1u) << run.out;
  EXPECT_TRUE(groups[0].at("reason").as_string().starts_with(
      "Threshold \"busBandwidthGBps\" violated: measured 1"))
      << run.out;
  int low = 0;
  for (const auto& row : category.at("groupBandwidth").as_array()) {
    const auto& nodes = row.at("nodes").as_array();
    const bool slow =
        std::find(nodes.begin(), nodes.end(), json::value("gpu-node-02")) != nodes.end();
    EXPECT_EQ(row.at("belowMin").as_bool(), slow) << json::serialize(row);
    low += slow;
  }
  EXPECT_EQ(low, 1) << run.out;

  const CliRun text = report("slow -n it");
  EXPECT_NE(text.out.find("  LOW"), std::string::npos) << text.out;
}

TEST_F(CliReport, RunningCertificationExitsOneAndSaysSo) {
  manager::EmbeddedClusterOptions options;
  options.stall_nodes = {"gpu-node-01"};
  start_cluster(options);
  client_->create(kCertifications, "it", certification("busy"));
  wait_for_category_status("busy", "InProgress");

  const CliRun run = report("busy -n it --junit-file " + (dir_ / "r.xml").string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("Error: certification \"busy\" is still running\n"), std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("│  Status:    Running"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("│  Result:       RUNNING"), std::string::npos) << run.out;
  EXPECT_EQ(parse_junit(dir_ / "r.xml"), "1 1 0 1 nccl-all-reduce");
}

TEST_F(CliReport, MissingCertificationIsNamedWithItsNamespace) {
  start_cluster({});
  const CliRun run = report("nosuch -n it");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "Error: certification \"nosuch\" not found in namespace \"it\"\n");
  EXPECT_EQ(run.out, "");
  // The kubeconfig's context names no namespace: "default" is searched.
  const CliRun in_default = report("nosuch");
  EXPECT_EQ(in_default.err, "Error: certification \"nosuch\" not found in namespace \"default\"\n");
}

TEST_F(CliReport, AResultsFileThatCannotBeWrittenFailsTheCommand) {
  start_cluster({});
  client_->create(kCertifications, "it", certification("healthy"));
  ASSERT_EQ(wait_for_verdict("healthy").type, "Succeeded");
  const std::string path = (dir_ / "no-such-dir" / "r.json").string();
  const CliRun run = report("healthy -n it --results-file " + path);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("Error: write results file: " + path), std::string::npos) << run.err;
  const CliRun html = report("healthy -n it --html " + path);
  EXPECT_EQ(html.exit_code, 1);
  EXPECT_NE(html.err.find("Error: write HTML report: " + path), std::string::npos) << html.err;
}

}  // namespace
}  // namespace nvcre::actors
