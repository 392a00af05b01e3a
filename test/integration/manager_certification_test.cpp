// The real manager (every controller, the actor shell) against an in-process kube-sim with a
// simulated GPU cluster and Trainer, driven through the API as a user would: a Certification on a
// healthy cluster succeeds, and one on a cluster with a faulty node fails and names that node with
// the fault. Input the controller must refuse is in manager_bad_input_test.cpp.
#include "test/support/embedded_manager.hpp"
#include "test/support/certification_object.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kJobs;
using nvcre::testing::Verdict;

json::value certification(const std::string& name, const std::string& domain,
                          const std::string& variant) {
  return nvcre::testing::one_category_certification(name, {{"nodesPerJob", 4}}, domain, variant);
}

class ManagerCertification : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void start(std::vector<std::string> faulty) {
    manager::EmbeddedClusterOptions options;
    options.faulty_nodes = std::move(faulty);
    EmbeddedManagerTest::start(std::move(options));
  }
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
