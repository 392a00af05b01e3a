// The embedded cluster installs LogProfiles after the CRDs: every shipped one (deploy/logprofiles,
// compiled in) and those of an extra directory, here a throwaway profile written by the test.
#include "api/logprofiles.hpp"
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/resources.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include <unistd.h>

namespace nvcre::manager {
namespace {

namespace fs = std::filesystem;
using nvcre::testing::kLogProfiles;

class EmbeddedLogProfiles : public ::testing::Test {
 protected:
  void SetUp() override {
    // The process id keeps concurrent runs (other build trees) apart.
    dir_ = fs::temp_directory_path() /
           ("nvcre-logprofiles-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    cluster_.reset();
    fs::remove_all(dir_);
  }

  void write(const std::string& file, const std::string& text) {
    std::ofstream(dir_ / file) << text;
  }

  void start() {
    EmbeddedClusterOptions options;
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.logprofiles_dir = dir_.string();
    cluster_ = std::make_unique<EmbeddedCluster>(options);
    cluster_->start();
  }

  fs::path dir_;
  std::unique_ptr<EmbeddedCluster> cluster_;
};

constexpr const char* kThrowaway = R"(apiVersion: nvcre.nvidia.com/v1alpha1
kind: LogProfile
metadata: {name: throwaway-test-logs}
spec:
  timestamp: {layout: "2006-01-02 15:04:05"}
  workerStrategy: {type: Multi}
  patterns:
    trainingStep: {regex: 'step (?P<globalStep>\d+)'}
)";

TEST_F(EmbeddedLogProfiles, CreatesTheShippedAndTheExtraProfiles) {
  write("throwaway.yaml", kThrowaway);
  start();

  const auto list = cluster_->client().list(kLogProfiles, "");
  std::set<std::string> names;
  for (const auto& item : list.at("items").as_array())
    names.insert(std::string(item.at("metadata").at("name").as_string()));
  std::set<std::string> expected = {"throwaway-test-logs"};
  for (const auto& shipped : api::shipped_logprofiles())
    expected.insert(std::string(shipped.at("metadata").at("name").as_string()));
  EXPECT_EQ(names, expected);

  // Cluster-scoped, stored with the CRD defaults applied.
  const auto created = cluster_->client().get(kLogProfiles, "", "throwaway-test-logs");
  EXPECT_EQ(created.at("metadata").as_object().if_contains("namespace"), nullptr);
  const auto& strategy = created.at("spec").at("workerStrategy");
  EXPECT_EQ(strategy.at("lifecyclePod"), "first");
  EXPECT_EQ(strategy.at("trainingStepPod"), "first");
  EXPECT_EQ(strategy.at("replicatedJobName"), "trainer");
}

TEST_F(EmbeddedLogProfiles, AnInvalidExtraProfileStopsTheStartNamingTheFile) {
  write("broken.yaml", std::string(kThrowaway) + "  warmupSteps: five\n");
  try {
    start();
    FAIL() << "started with an invalid LogProfile";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what())
                  .find("broken.yaml, document 1: LogProfile "
                        "\"throwaway-test-logs\" is invalid: spec.warmupSteps"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace nvcre::manager
