// Golden suite `setup-status` for install::evaluate_status and its rendering (`nvcrectl setup
// status`): what was read from a cluster -> the table, then "--- json ---" and the JSON.
//   cluster.yaml  (optional) the objects read: CustomResourceDefinitions, Deployments (namespace
//                 nvcre, or kubeflow-system's Trainer controller), LogProfiles, Nodes (counted
//                 when labelled nvidia.com/gpu.present=true), Services (gpu-operator/nvidia-dcgm)
//   install.txt   (optional) lines adding what setup init applies: `crds` (every shipped CRD,
//                 Established), `logprofiles` (every shipped LogProfile), `drop <name>` (leave
//                 that one out)
//   dcgm.txt      (optional) `unknown` when the DCGM lookup failed (default: from cluster.yaml)
#include "install/bundle.hpp"
#include "install/status.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <set>
#include <sstream>

namespace {

namespace json = boost::json;
namespace install = nvcre::install;
using nvcre::jsonkit::string_at;
using nvcre::testing::GoldenCase;

void add_install(const GoldenCase& golden_case, std::vector<json::value>& objects) {
  if (!golden_case.has_input("install.txt")) return;
  std::set<std::string> parts, dropped;
  std::istringstream lines(golden_case.input("install.txt"));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("drop "))
      dropped.insert(line.substr(5));
    else if (!line.empty())
      parts.insert(line);
  }
  for (auto object : install::install_objects()) {
    const std::string kind = string_at(object, {"kind"});
    if (dropped.contains(string_at(object, {"metadata", "name"}))) continue;
    if (kind == "CustomResourceDefinition" && parts.contains("crds")) {
      object.as_object()["status"] = json::object{
          {"conditions", json::array{json::object{{"type", "Established"}, {"status", "True"}}}}};
      objects.push_back(std::move(object));
    } else if (kind == "LogProfile" && parts.contains("logprofiles")) {
      objects.push_back(std::move(object));
    }
  }
}

install::ClusterObservation observation_of(const GoldenCase& golden_case) {
  std::vector<json::value> objects;
  if (golden_case.has_input("cluster.yaml"))
    objects = nvcre::jsonkit::parse_yaml_documents(golden_case.input("cluster.yaml"));
  add_install(golden_case, objects);
  install::ClusterObservation observed;
  observed.dcgm_service = install::Presence::Absent;
  for (auto& object : objects) {
    const std::string kind = string_at(object, {"kind"});
    const std::string ns = string_at(object, {"metadata", "namespace"});
    const std::string name = string_at(object, {"metadata", "name"});
    if (kind == "CustomResourceDefinition") {
      observed.crds.push_back(std::move(object));
    } else if (kind == "Deployment" && ns == install::kNamespace) {
      observed.nvcre_deployments.push_back(std::move(object));
    } else if (kind == "Deployment" && ns == install::kTrainerNamespace &&
               name == install::kTrainerDeployment) {
      observed.trainer_deployment = std::move(object);
    } else if (kind == "LogProfile") {
      observed.log_profiles.push_back(std::move(object));
    } else if (kind == "Node") {
      if (string_at(object, {"metadata", "labels", std::string(install::kGpuPresentLabel)}) ==
          "true")
        ++observed.gpu_nodes;
    } else if (kind == "Service" && ns == install::kDcgmNamespace &&
               name == install::kDcgmService) {
      observed.dcgm_service = install::Presence::Present;
    } else {
      throw std::invalid_argument("cluster.yaml: unexpected " + kind + " " + name);
    }
  }
  if (golden_case.has_input("dcgm.txt")) observed.dcgm_service = install::Presence::Unknown;
  return observed;
}

std::vector<std::string> shipped(std::string_view kind) {
  std::vector<std::string> names;
  for (const auto& object : install::install_objects())
    if (string_at(object, {"kind"}) == kind)
      names.push_back(string_at(object, {"metadata", "name"}));
  return names;
}

class SetupStatusGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(SetupStatusGolden, Renders) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto status = install::evaluate_status(
        observation_of(golden_case), shipped("CustomResourceDefinition"), shipped("LogProfile"));
    return install::render_status_table(status) + "--- json ---\n" +
           nvcre::jsonkit::to_pretty_json(install::status_json(status));
  });
}

NVCRE_GOLDEN_SUITE(SetupStatusGolden, "setup-status");

}  // namespace
