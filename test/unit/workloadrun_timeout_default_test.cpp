// The WorkloadRun timeoutPerJob default is stated twice: by the controller (what it renders) and by
// the CRD description users read in `kubectl explain`. Both must say 24h.
#include "api/schema.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/duration.hpp"
#include "workloadrun/build.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace nvcre {
namespace {

std::string workloadrun_timeout_description() {
  for (const auto& file : api::embedded_crd_files()) {
    auto crd = jsonkit::parse_yaml(file.content);
    if (crd.at("metadata").at("name") != "workloadruns.nvcre.nvidia.com") continue;
    const auto& spec = crd.at("spec")
                           .at("versions")
                           .at(0)
                           .at("schema")
                           .at("openAPIV3Schema")
                           .at("properties")
                           .at("spec");
    const auto& timeout =
        spec.at("properties").at("orchestration").at("properties").at("timeoutPerJob");
    return std::string(timeout.at("description").as_string());
  }
  return {};
}

TEST(WorkloadRunTimeoutDefault, ControllerAndCrdDescriptionBothSay24h) {
  auto parsed = k8s::parse_go_duration(workloadrun::kDefaultTimeoutPerJob);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::hours>(*parsed).count(), 24);
  const std::string description = workloadrun_timeout_description();
  EXPECT_NE(description.find("Default 24h"), std::string::npos) << description;
  EXPECT_EQ(description.find("default 1h"), std::string::npos) << description;
}

}  // namespace
}  // namespace nvcre
