// The real manager (every controller, the actor shell) against an in-process kube-sim with a
// simulated GPU cluster and Trainer, driven through the API as a user would: a Certification on a
// healthy cluster succeeds, and one on a cluster with a faulty node fails and names that node with
// the fault. Input the controller must refuse is in manager_bad_input_test.cpp.
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/resources.hpp"
#include "test/support/verdict.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kJobs;
using nvcre::testing::Verdict;
using nvcre::testing::verdict_of;

json::value certification(const std::string& name, const std::string& domain,
                          const std::string& variant) {
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "Certification"},
      {"metadata", {{"name", name}, {"namespace", "it"}}},
      {"spec",
       {{"target", {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}}},
        {"categories",
         json::array{json::object{
             {"domain", domain}, {"variant", variant}, {"options", {{"nodesPerJob", 4}}}}}}}}};
}

class ManagerCertification : public ::testing::Test {
 protected:
  void start(std::vector<std::string> faulty) {
    manager::EmbeddedClusterOptions options;
    options.faulty_nodes = std::move(faulty);
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.namespaces = {"it"};
    cluster_ = std::make_unique<manager::EmbeddedCluster>(options);
    cluster_->start();
    client_ = &cluster_->client();
    manager_ = std::make_unique<Manager>(cluster_->manager_options("it"));
    manager_->start();
  }
  void TearDown() override {
    manager_.reset();
    cluster_.reset();
  }

  Verdict wait_for_verdict(const std::string& name) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
      Verdict v = verdict_of(client_->get(kCertifications, "it", name));
      if (!v.type.empty()) return v;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return {};
  }

  std::unique_ptr<manager::EmbeddedCluster> cluster_;
  k8s::RestClient* client_ = nullptr;
  std::unique_ptr<Manager> manager_;
};

TEST_F(ManagerCertification, HealthyClusterSucceeds) {
  start({});
  client_->create(kCertifications, "it",
                  certification("healthy", "communication", "nccl-all-reduce"));
  auto v = wait_for_verdict("healthy");
  EXPECT_EQ(v.type, "Succeeded") << v.reason << ": " << v.message;
  EXPECT_EQ(v.reason, "AllWorkflowsSucceeded");
  EXPECT_EQ(v.message, "All certification categories completed successfully");
}

TEST_F(ManagerCertification, FaultyNodeFailsAndIsNamedWithItsFault) {
  start({"gpu-node-02=XID 79: GPU has fallen off the bus"});
  client_->create(kCertifications, "it",
                  certification("faulty", "communication", "nccl-all-reduce"));
  auto v = wait_for_verdict("faulty");
  EXPECT_EQ(v.type, "Failed");
  EXPECT_EQ(v.reason, "WorkflowFailed");
  EXPECT_EQ(v.message, "One or more certification categories failed");
  bool named = false;
  const json::value jobs = client_->list(kJobs, "it");
  for (const auto& job : jobs.at("items").as_array()) {
    const auto* failed = job.at("status").as_object().if_contains("failedNodes");
    if (failed == nullptr) continue;
    for (const auto& node : failed->as_array()) {
      if (node.at("name") == "gpu-node-02" &&
          std::string(node.at("message").as_string()).find("XID 79: GPU has fallen off the bus") !=
              std::string::npos) {
        named = true;
      }
    }
  }
  EXPECT_TRUE(named) << json::serialize(jobs);
}

}  // namespace
}  // namespace nvcre::actors
