// Diagnose mode end to end: the real manager against an in-process kube-sim whose faulty nodes fail
// every group they run in. A Certification runs communication/nccl-all-reduce with testScale
// diagnose; the Workflow isolates the bad nodes round by round and blames exactly them (reason
// WorkloadFailed, "Diagnosis complete: K faulty nodes confirmed") in the failed-nodes ConfigMap the
// Workflow and the Certification point at, with every other node in the succeeded-nodes one.
// Each test prints the rounds and Jobs the run took (the cost users pay in GPU hours).
#include "jsonkit/paths.hpp"
#include "k8s/kubeconfig.hpp"
#include "test/support/embedded_manager.hpp"
#include "test/support/certification_object.hpp"
#include "workflow/node_results.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kConfigMaps;
using nvcre::testing::kJobs;
using nvcre::testing::kNodes;
using nvcre::testing::kWorkflows;
using nvcre::testing::Verdict;

json::value diagnose_certification(const std::string& name, json::object thresholds = {}) {
  json::object options{{"nodesPerJob", 2}, {"testScale", "diagnose"}};
  if (!thresholds.empty()) options["thresholds"] = std::move(thresholds);
  return nvcre::testing::one_category_certification(name, std::move(options));
}

std::string node_name(int index) {
  return (index < 10 ? "gpu-node-0" : "gpu-node-") + std::to_string(index);
}

class ManagerDiagnose : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void start(const std::string& profile, std::vector<std::string> faulty,
             std::vector<std::string> slow = {},
             std::chrono::milliseconds trainer_step = std::chrono::milliseconds(50)) {
    manager::EmbeddedClusterOptions options;
    options.trainer_step = trainer_step;
    options.profile = profile;
    options.faulty_nodes = std::move(faulty);
    options.slow_nodes = std::move(slow);
    EmbeddedManagerTest::start(std::move(options));
  }

  // Labels the nodes into `domains` racks of consecutive nodes under the diagnose topology key the
  // catalog uses (nvidia.com/gpu.clique), as an operator would with kubectl label.
  void label_racks(int nodes, int domains) {
    for (int i = 0; i < nodes; ++i) {
      const std::string rack = "rack-" + std::to_string(i / (nodes / domains));
      client_->merge_patch(
          kNodes, "", node_name(i),
          json::object{{"metadata", {{"labels", {{"nvidia.com/gpu.clique", rack}}}}}});
    }
  }

  json::value workflow() {
    const auto workflows = items(kWorkflows);
    EXPECT_EQ(workflows.size(), 1u);
    return workflows.empty() ? json::value() : workflows.front();
  }

  std::string payload(const json::value& ref, std::string_view key) {
    const std::string name(ref.at("name").as_string());
    const json::value cm = client_->get(kConfigMaps, "it", name);
    auto raw = k8s::decode_base64(std::string(cm.at("binaryData").at(key).as_string()));
    EXPECT_TRUE(raw.has_value()) << name;
    return raw ? workflow::gunzip(*raw) : std::string();
  }

  struct Outcome {
    std::vector<std::pair<std::string, std::string>> failed;  // name, reason
    std::string failed_message;
    std::set<std::string> succeeded;
  };

  Outcome node_results(const json::value& wf) {
    Outcome out;
    const json::value failed =
        json::parse(payload(wf.at("status").at("failedNodesRef"), workflow::kFailedNodesKey));
    for (const auto& entry : failed.as_array()) {
      out.failed.emplace_back(entry.at("name").as_string(), entry.at("reason").as_string());
      out.failed_message = std::string(entry.at("message").as_string());
    }
    const std::string csv =
        payload(wf.at("status").at("succeededNodesRef"), workflow::kSucceededNodesKey);
    std::size_t at = 0;
    while (at < csv.size()) {
      auto comma = csv.find(',', at);
      if (comma == std::string::npos) comma = csv.size();
      out.succeeded.insert(csv.substr(at, comma - at));
      at = comma + 1;
    }
    return out;
  }

  // The category's node-result refs name the Workflow's ConfigMaps.
  void expect_certification_mirrors(const std::string& cert, const json::value& wf) {
    const json::value c = client_->get(kCertifications, "it", cert);
    const auto& category = c.at("status").at("categoryStatuses").as_array().at(0);
    EXPECT_EQ(category.at("failedNodesRef").at("name"),
              wf.at("status").at("failedNodesRef").at("name"));
    EXPECT_EQ(category.at("succeededNodesRef").at("name"),
              wf.at("status").at("succeededNodesRef").at("name"));
  }

  void report_cost(const std::string& what, const json::value& wf) {
    const auto& diagnose = wf.at("status").at("orchestration").at("diagnose");
    std::cout << "[diagnose cost] " << what << ": " << diagnose.at("round").as_int64()
              << " rounds, " << items(kJobs).size() << " Jobs" << std::endl;
  }
};

TEST_F(ManagerDiagnose, SixteenNodesOneFaultyNodeBlamesThatNodeAlone) {
  start("aws:h100:16", {"gpu-node-05"});
  client_->create(kCertifications, "it", diagnose_certification("isolate"));
  const Verdict v = wait_for_verdict("isolate", std::chrono::seconds(180));
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  const json::value wf = workflow();
  ASSERT_TRUE(wf.is_object());
  const json::object* failed = nullptr;
  for (const auto& c : wf.at("status").at("conditions").as_array()) {
    if (c.at("type") == "Failed") failed = &c.as_object();
  }
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->at("status"), "True");
  EXPECT_EQ(failed->at("reason"), "IterationsFailed");
  EXPECT_EQ(failed->at("message"), "Diagnosis complete: 1 faulty nodes confirmed");
  EXPECT_EQ(wf.at("status").at("orchestration").at("diagnose").at("stage"), "complete");

  const Outcome results = node_results(wf);
  ASSERT_EQ(results.failed.size(), 1u);
  EXPECT_EQ(results.failed[0].first, "gpu-node-05");
  EXPECT_EQ(results.failed[0].second, "WorkloadFailed");
  EXPECT_EQ(results.failed_message, "Diagnosis complete: 1 faulty nodes confirmed");
  std::set<std::string> healthy;
  for (int i = 0; i < 16; ++i) {
    if (i != 5) healthy.insert(node_name(i));
  }
  EXPECT_EQ(results.succeeded, healthy);
  expect_certification_mirrors("isolate", wf);
  report_cost("16 nodes, 1 faulty", wf);
}

TEST_F(ManagerDiagnose, ThirtyTwoNodesInFourRacksTwoFaultyNodesBlamesBothAndNoOther) {
  start("aws:h100:32", {"gpu-node-06", "gpu-node-27"});
  label_racks(32, 4);
  client_->create(kCertifications, "it", diagnose_certification("racks"));
  const Verdict v = wait_for_verdict("racks", std::chrono::seconds(240));
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  const json::value wf = workflow();
  ASSERT_TRUE(wf.is_object());
  const auto& groups = wf.at("status").at("orchestration").at("diagnose").at("screeningResults");
  EXPECT_EQ(groups.as_object().size(), 4u) << json::serialize(groups);

  const Outcome results = node_results(wf);
  std::set<std::string> blamed;
  for (const auto& [name, reason] : results.failed) {
    blamed.insert(name);
    EXPECT_EQ(reason, "WorkloadFailed") << name;
  }
  EXPECT_EQ(blamed, (std::set<std::string>{"gpu-node-06", "gpu-node-27"}));
  EXPECT_EQ(results.failed_message, "Diagnosis complete: 2 faulty nodes confirmed");
  EXPECT_EQ(results.succeeded.size(), 30u);
  EXPECT_EQ(results.succeeded.count("gpu-node-06") + results.succeeded.count("gpu-node-27"), 0u);
  expect_certification_mirrors("racks", wf);
  report_cost("32 nodes in 4 racks, 2 faulty", wf);
}

// Every Job runs to completion, but the groups holding gpu-node-09 measure at most 120 GB/s bus
// bandwidth against a 300 GB/s threshold: the bandwidth verdicts isolate that node alone.
TEST_F(ManagerDiagnose, ASlowNodeIsIsolatedByItsBandwidth) {
  start("aws:h100:16", {}, {"gpu-node-09=120"});
  client_->create(kCertifications, "it",
                  diagnose_certification("slow", {{"busBandwidthGBps", "value >= 300"}}));
  const Verdict v = wait_for_verdict("slow", std::chrono::seconds(180));
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  const json::value wf = workflow();
  ASSERT_TRUE(wf.is_object());
  const Outcome results = node_results(wf);
  ASSERT_EQ(results.failed.size(), 1u);
  EXPECT_EQ(results.failed[0].first, "gpu-node-09");
  EXPECT_EQ(results.failed[0].second, "WorkloadFailed");
  EXPECT_EQ(results.succeeded.size(), 15u);
  EXPECT_EQ(results.succeeded.count("gpu-node-09"), 0u);
  report_cost("16 nodes, 1 slow", wf);
}

// The diagnose state lives in the Workflow's status: a manager stopped between rounds and started
// again carries on from the round it left, creates no Job twice, and reaches the same verdict.
TEST_F(ManagerDiagnose, AManagerRestartedMidDiagnosisResumes) {
  // Slower Trainer steps leave the three remaining rounds plenty of time to be interrupted.
  start("aws:h100:16", {"gpu-node-05"}, {}, std::chrono::milliseconds(200));
  client_->create(kCertifications, "it", diagnose_certification("resume"));
  bool mid_diagnosis = false;
  for (int i = 0; i < 900 && !mid_diagnosis; ++i) {
    const auto workflows = items(kWorkflows);
    const json::value* round =
        workflows.empty() ? nullptr
                          : jsonkit::value_at(workflows.front(),
                                              {"status", "orchestration", "diagnose", "round"});
    mid_diagnosis = round != nullptr && round->as_int64() >= 2;
    if (!mid_diagnosis) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(mid_diagnosis) << "the diagnosis never reached its second round";
  manager_.reset();  // stopped between rounds (or within one)
  manager_ = std::make_unique<actors::Manager>(cluster_->manager_options("it-restarted"));
  manager_->start();
  const Verdict v = wait_for_verdict("resume", std::chrono::seconds(180));
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  const json::value wf = workflow();
  ASSERT_TRUE(wf.is_object());
  const Outcome results = node_results(wf);
  ASSERT_EQ(results.failed.size(), 1u);
  EXPECT_EQ(results.failed[0].first, "gpu-node-05");
  EXPECT_EQ(results.succeeded.size(), 15u);
  // The uninterrupted run takes 5 rounds and 9 Jobs; a restart that started over would take more.
  EXPECT_EQ(items(kJobs).size(), 9u);
  EXPECT_EQ(wf.at("status").at("orchestration").at("diagnose").at("round"), 5);
  report_cost("16 nodes, 1 faulty, manager restarted", wf);
}

}  // namespace
}  // namespace nvcre::actors
