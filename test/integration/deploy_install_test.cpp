// The install tree (deploy/): kubectl's kustomize renders it, the manager accepts every argument
// the Deployment passes, the Deployment runs locked down, everything nvcre ships (its CRDs, the
// shipped LogProfiles) is in it and nothing of the test fixtures is, the documented overlay
// patches take effect, and the documented two-step apply installs it on kube-sim.
#include "api/logprofiles.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "kubectl_support.hpp"
#include "manager/flags.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <set>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

class DeployInstall : public KubectlTest {
 protected:
  std::vector<json::value> render(const std::string& dir) const {
    const CommandResult result = run_shell("timeout 30 kubectl kustomize " + source(dir) + " 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return jsonkit::parse_yaml_documents(result.output);
  }
};

const json::value* find(const std::vector<json::value>& objects, std::string_view kind,
                        std::string_view name) {
  for (const auto& object : objects) {
    if (jsonkit::string_at(object, {"kind"}) == kind &&
        jsonkit::string_at(object, {"metadata", "name"}) == name)
      return &object;
  }
  return nullptr;
}

const json::object& manager_container(const json::value& deployment) {
  return deployment.at_pointer("/spec/template/spec/containers/0").as_object();
}

// Parses the container's args with the manager's own flag parser.
manager::ManagerFlags parsed_args(const json::object& container) {
  std::vector<std::string> words{"nvcre-manager"};
  for (const auto& arg : container.at("args").as_array()) words.emplace_back(arg.as_string());
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  manager::ManagerFlags flags;
  EXPECT_EQ(manager::parse_manager_flags(static_cast<int>(argv.size()), argv.data(), flags), -1);
  EXPECT_EQ(manager::validate_manager_flags(flags), "");
  return flags;
}

TEST_F(DeployInstall, TheManagerAcceptsWhatTheDeploymentPasses) {
  const auto objects = render("deploy");
  const json::value* deployment = find(objects, "Deployment", "nvcre-manager");
  ASSERT_NE(deployment, nullptr);
  const manager::ManagerFlags flags = parsed_args(manager_container(*deployment));
  EXPECT_TRUE(flags.leader_elect);
  EXPECT_EQ(flags.metrics_bind_address, ":8443");
  EXPECT_EQ(flags.health_probe_bind_address, ":8081");
  EXPECT_EQ(flags.max_concurrent_reconciles, 10);
  EXPECT_EQ(flags.measurement_max_concurrent_reconciles, 5);
}

TEST_F(DeployInstall, TheDeploymentRunsLockedDown) {
  const auto objects = render("deploy");
  const json::value* deployment = find(objects, "Deployment", "nvcre-manager");
  ASSERT_NE(deployment, nullptr);
  const auto& pod = deployment->at_pointer("/spec/template/spec");
  EXPECT_EQ(pod.at("serviceAccountName"), "nvcre-manager");
  EXPECT_EQ(pod.at_pointer("/securityContext/runAsNonRoot"), true);
  EXPECT_EQ(pod.at_pointer("/securityContext/runAsUser"), 65532);
  EXPECT_EQ(pod.at_pointer("/securityContext/seccompProfile/type"), "RuntimeDefault");
  const auto& container = manager_container(*deployment);
  EXPECT_EQ(container.at("securityContext").at("allowPrivilegeEscalation"), false);
  EXPECT_EQ(container.at("securityContext").at("readOnlyRootFilesystem"), true);
  const json::value drop_all = json::array{"ALL"};
  EXPECT_EQ(container.at("securityContext").at_pointer("/capabilities/drop"), drop_all);
  EXPECT_EQ(container.at("livenessProbe").at_pointer("/httpGet/path"), "/healthz");
  EXPECT_EQ(container.at("readinessProbe").at_pointer("/httpGet/path"), "/readyz");
  const json::value tolerate_all = json::array{json::object{{"operator", "Exists"}}};
  EXPECT_EQ(pod.at("tolerations"), tolerate_all);
}

TEST_F(DeployInstall, ItShipsNvcresCrdsAndLogProfilesAndNoFixtures) {
  const auto objects = render("deploy");
  std::set<std::string> crd_groups;
  std::set<std::string> profiles;
  for (const auto& object : objects) {
    const std::string kind = jsonkit::string_at(object, {"kind"});
    if (kind == "CustomResourceDefinition")
      crd_groups.insert(jsonkit::string_at(object, {"spec", "group"}));
    if (kind == "LogProfile") profiles.insert(jsonkit::string_at(object, {"metadata", "name"}));
  }
  EXPECT_EQ(crd_groups, std::set<std::string>{"nvcre.nvidia.com"});
  for (const char* kind : {"certifications", "workloadruns", "workflows", "jobs",
                           "goodputmeasurements", "bandwidthmeasurements", "logprofiles"}) {
    EXPECT_NE(find(objects, "CustomResourceDefinition", std::string(kind) + ".nvcre.nvidia.com"),
              nullptr)
        << kind;
  }
  std::set<std::string> shipped;
  for (const auto& profile : api::shipped_logprofiles())
    shipped.insert(jsonkit::string_at(profile, {"metadata", "name"}));
  EXPECT_EQ(profiles, shipped);
}

TEST_F(DeployInstall, TheManagerCannotReadSecretsOrWriteNodesAndPods) {
  const auto objects = render("deploy");
  const json::value* role = find(objects, "ClusterRole", "nvcre-manager-role");
  ASSERT_NE(role, nullptr);
  for (const auto& rule : role->at("rules").as_array()) {
    std::set<std::string> resources;
    for (const auto& r : rule.at("resources").as_array()) resources.emplace(r.as_string());
    std::set<std::string> verbs;
    for (const auto& v : rule.at("verbs").as_array()) verbs.emplace(v.as_string());
    EXPECT_FALSE(resources.contains("secrets")) << json::serialize(rule);
    EXPECT_FALSE(verbs.contains("*")) << json::serialize(rule);
    if (resources.contains("nodes") || resources.contains("pods")) {
      EXPECT_EQ(verbs, (std::set<std::string>{"get", "list", "watch"})) << json::serialize(rule);
    }
  }
}

TEST_F(DeployInstall, TheDocumentedOverlayPatchesTakeEffect) {
  const auto objects = render("examples/install-overlay");
  const json::value* deployment = find(objects, "Deployment", "nvcre-manager");
  ASSERT_NE(deployment, nullptr);
  EXPECT_EQ(deployment->at_pointer("/spec/replicas"), 2);
  const auto& container = manager_container(*deployment);
  EXPECT_EQ(container.at("image"), "registry.example.com/gpu/nvcre-manager:0.4.0");
  EXPECT_EQ(container.at("resources").at_pointer("/requests/memory"), "2Gi");
  const manager::ManagerFlags flags = parsed_args(container);
  EXPECT_EQ(flags.max_concurrent_reconciles, 20);
  EXPECT_EQ(flags.measurement_max_concurrent_reconciles, 8);
}

TEST_F(DeployInstall, TheTwoStepApplyInstallsIt) {
  CommandResult crds = kubectl("apply -k " + source("deploy/crds"));
  ASSERT_EQ(crds.exit_code, 0) << crds.output;
  CommandResult established = kubectl("wait --for condition=Established --timeout=20s crd --all");
  ASSERT_EQ(established.exit_code, 0) << established.output;
  CommandResult all = kubectl("apply -k " + source("deploy"));
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_TRUE(contains(all.output, "deployment.apps/nvcre-manager created")) << all.output;
  CommandResult profiles = kubectl("get logprofiles -o name");
  EXPECT_EQ(profiles.exit_code, 0) << profiles.output;
  for (const auto& profile : api::shipped_logprofiles()) {
    EXPECT_TRUE(contains(profiles.output, "logprofile.nvcre.nvidia.com/" +
                                              jsonkit::string_at(profile, {"metadata", "name"})))
        << profiles.output;
  }
  CommandResult binding = kubectl("get clusterrolebinding nvcre-manager-rolebinding -o name");
  EXPECT_EQ(binding.exit_code, 0) << binding.output;
  // Applying again changes nothing (an upgrade with the same tree).
  CommandResult again = kubectl("apply -k " + source("deploy"));
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_FALSE(contains(again.output, "created")) << again.output;
}

}  // namespace
}  // namespace nvcre::sim::testing
