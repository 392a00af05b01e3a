// install/: the objects setup init applies (deploy/'s kustomization resolved from the compiled-in
// files, in apply order), the phase flags, the confirmation rule and the Kubeflow Trainer check.
#include "api/logprofiles.hpp"
#include "install/bundle.hpp"
#include "install/phases.hpp"
#include "install/status.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <set>

namespace nvcre::install {
namespace {

namespace json = boost::json;

std::vector<std::string> kinds_of(const std::vector<json::value>& objects) {
  std::vector<std::string> kinds;
  for (const auto& object : objects) kinds.push_back(jsonkit::string_at(object, {"kind"}));
  return kinds;
}

std::size_t first(const std::vector<std::string>& kinds, const std::string& kind) {
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == kind) return i;
  ADD_FAILURE() << "no " << kind;
  return kinds.size();
}

std::size_t last(const std::vector<std::string>& kinds, const std::string& kind) {
  std::size_t found = kinds.size();
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == kind) found = i;
  EXPECT_NE(found, kinds.size()) << "no " << kind;
  return found;
}

TEST(InstallBundle, AppliesNamespaceAndCrdsFirstAndCustomResourcesLast) {
  const auto kinds = kinds_of(install_objects());
  EXPECT_EQ(kinds.front(), "Namespace");
  EXPECT_LT(last(kinds, "CustomResourceDefinition"), first(kinds, "ServiceAccount"));
  EXPECT_LT(last(kinds, "ClusterRoleBinding"), first(kinds, "Deployment"));
  EXPECT_LT(last(kinds, "RoleBinding"), first(kinds, "Deployment"));
  EXPECT_LT(last(kinds, "Deployment"), first(kinds, "LogProfile"));
  EXPECT_EQ(kinds.back(), "LogProfile");
}

TEST(InstallBundle, HoldsNvcresCrdsAndShippedLogProfilesAndNoTestFixtures) {
  std::set<std::string> crds, profiles;
  for (const auto& object : install_objects()) {
    const std::string kind = jsonkit::string_at(object, {"kind"});
    if (kind == "CustomResourceDefinition") {
      EXPECT_EQ(jsonkit::string_at(object, {"spec", "group"}), kApiGroup);
      crds.insert(jsonkit::string_at(object, {"metadata", "name"}));
    }
    if (kind == "LogProfile") profiles.insert(jsonkit::string_at(object, {"metadata", "name"}));
  }
  EXPECT_EQ(crds.size(), 8u);
  EXPECT_TRUE(crds.contains("certifications.nvcre.nvidia.com"));
  EXPECT_TRUE(crds.contains("logprofiles.nvcre.nvidia.com"));
  EXPECT_TRUE(crds.contains("reportexportpolicies.nvcre.nvidia.com"));
  std::set<std::string> shipped;
  for (const auto& profile : api::shipped_logprofiles())
    shipped.insert(jsonkit::string_at(profile, {"metadata", "name"}));
  EXPECT_EQ(profiles, shipped);
}

TEST(InstallBundle, ImageOverrideReplacesTheManagerImage) {
  const auto objects = install_objects({"registry.example.com/nvcre-manager:9.9.9", ""});
  int deployments = 0;
  for (const auto& object : objects) {
    if (jsonkit::string_at(object, {"kind"}) != "Deployment") continue;
    ++deployments;
    EXPECT_EQ(object.at_pointer("/spec/template/spec/containers/0/image"),
              "registry.example.com/nvcre-manager:9.9.9");
  }
  EXPECT_EQ(deployments, 1);
  for (const auto& object : install_objects()) {
    if (jsonkit::string_at(object, {"kind"}) == "Deployment") {
      EXPECT_NE(object.at_pointer("/spec/template/spec/containers/0/image"),
                "registry.example.com/nvcre-manager:9.9.9");
    }
  }
}

TEST(InstallBundle, PullSecretIsNamedInTheManagerPodOnlyWhenGiven) {
  const auto image_of = [](const std::vector<boost::json::value>& objects) {
    for (const auto& object : objects)
      if (jsonkit::string_at(object, {"kind"}) == "Deployment")
        return object.at_pointer("/spec/template/spec/containers/0/image");
    return boost::json::value();
  };
  const auto objects = install_objects({"", "manager-pull"});
  for (const auto& object : objects) {
    if (jsonkit::string_at(object, {"kind"}) == "Deployment") {
      EXPECT_EQ(object.at_pointer("/spec/template/spec/imagePullSecrets"),
                boost::json::parse(R"([{"name":"manager-pull"}])"));
    }
  }
  // The image stays deploy/'s when only the secret is given.
  EXPECT_EQ(image_of(objects), image_of(install_objects()));
  for (const auto& object : install_objects()) {
    if (jsonkit::string_at(object, {"kind"}) == "Deployment") {
      EXPECT_EQ(jsonkit::value_at(object, {"spec", "template", "spec", "imagePullSecrets"}),
                nullptr);
    }
  }
}

const EmbeddedFile kOverlay[] = {
    {"o/kustomization.yaml", "resources:\n- a.yaml\n- sub\n"},
    {"o/a.yaml",
     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n"
     "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n"},
    {"o/sub/Kustomization", "resources: [b.yaml]\n"},
    {"o/sub/b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: b}\n"},
    {"bad/kustomization.yaml", "resources: [x.yaml]\nimages: [{name: x}]\n"},
    {"missing/kustomization.yaml", "resources: [nope.yaml]\n"},
};

TEST(InstallBundle, ResolvesNestedKustomizationsInOrder) {
  const BundleSources sources{{kOverlay}};
  const auto objects = resolve_kustomization(sources, "o");
  ASSERT_EQ(objects.size(), 3u);
  EXPECT_EQ(kinds_of(objects), (std::vector<std::string>{"ConfigMap", "Namespace", "Service"}));
  EXPECT_EQ(kinds_of(apply_order(objects)),
            (std::vector<std::string>{"Namespace", "ConfigMap", "Service"}));
}

TEST(InstallBundle, RejectsWhatItCannotRenderLikeKustomize) {
  const BundleSources sources{{kOverlay}};
  try {
    resolve_kustomization(sources, "bad");
    FAIL() << "images: accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("bad/kustomization.yaml: \"images\""),
              std::string::npos)
        << error.what();
  }
  try {
    resolve_kustomization(sources, "missing");
    FAIL() << "a missing resource accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("resource \"nope.yaml\" is not compiled in"),
              std::string::npos)
        << error.what();
  }
}

TEST(InstallBundle, LabelsObjectsAsKubectlDoes) {
  EXPECT_EQ(object_label(jsonkit::parse_yaml(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nvcre-manager}\n")),
            "deployment.apps/nvcre-manager");
  EXPECT_EQ(object_label(jsonkit::parse_yaml("apiVersion: v1\nkind: Namespace\nmetadata: "
                                             "{name: nvcre}\n")),
            "namespace/nvcre");
}

TEST(SetupPhases, SkipPhasesAcceptsTheCommandsPhasesAndHelmAsInstall) {
  EXPECT_EQ(parse_skip_phases("deps", SetupCommand::Init), (std::set<std::string>{"deps"}));
  EXPECT_EQ(parse_skip_phases(" deps , helm ", SetupCommand::Init),
            (std::set<std::string>{"deps", "install"}));
  EXPECT_EQ(parse_skip_phases("cr,install", SetupCommand::Reset),
            (std::set<std::string>{"cr", "install"}));
  EXPECT_TRUE(parse_skip_phases("", SetupCommand::Init).empty());
  try {
    parse_skip_phases("deps,cr", SetupCommand::Init);
    FAIL() << "cr accepted for init";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "--skip-phases: unknown phase \"cr\" (valid phases: deps, install)");
  }
}

TEST(SetupPhases, OnlyTheLiteralYesConfirms) {
  EXPECT_TRUE(is_confirmed("yes"));
  EXPECT_TRUE(is_confirmed("  yes\r\n"));
  for (const char* answer : {"", "y", "Yes", "YES", "yes please", "no"})
    EXPECT_FALSE(is_confirmed(answer)) << answer;
}

json::value crd(const std::string& name, const std::string& version_label = "") {
  json::object meta{{"name", name}};
  if (!version_label.empty())
    meta["labels"] = json::object{{"app.kubernetes.io/version", version_label}};
  return json::object{{"kind", "CustomResourceDefinition"}, {"metadata", std::move(meta)}};
}

json::value trainer_deployment(const std::string& image) {
  return jsonkit::parse_yaml(
      "metadata: {name: kubeflow-trainer-controller-manager, namespace: kubeflow-system}\n"
      "spec: {template: {spec: {containers: [{name: sidecar, image: 'x:v9.9.9'}, "
      "{name: manager, image: '" +
      image + "'}]}}}\n");
}

TEST(SetupTrainer, MissingCrdsSayWhichAndHowToInstall) {
  ClusterObservation observed;
  observed.crds = {crd("trainjobs.trainer.kubeflow.org")};
  const auto check = check_trainer(observed);
  EXPECT_FALSE(check.ok());
  EXPECT_EQ(trainer_problem(check),
            "Kubeflow Trainer is not installed: CRD trainingruntimes.trainer.kubeflow.org not "
            "found (nvcre runs its workloads as Trainer TrainJobs)");
  EXPECT_NE(trainer_install_instructions().find(
                "helm upgrade --install kubeflow-trainer oci://ghcr.io/kubeflow/charts/"
                "kubeflow-trainer --version 2.2.1 --namespace kubeflow-system"),
            std::string::npos);
}

TEST(SetupTrainer, VersionFromTheControllerImageThenTheCrdLabel) {
  ClusterObservation observed;
  observed.crds = {crd("trainjobs.trainer.kubeflow.org", "v2.1.0"),
                   crd("trainingruntimes.trainer.kubeflow.org")};
  observed.trainer_deployment = trainer_deployment("ghcr.io/kubeflow/trainer/controller:v2.2.1");
  auto check = check_trainer(observed);
  EXPECT_EQ(check.version->detected, "v2.2.1");
  EXPECT_EQ(check.version->source, "deployment image");
  EXPECT_TRUE(check.ok());
  EXPECT_EQ(trainer_problem(check), "");

  observed.trainer_deployment = trainer_deployment("registry:5000/trainer:latest");
  check = check_trainer(observed);
  EXPECT_EQ(check.version->detected, "v2.1.0");
  EXPECT_EQ(check.version->source, "crd label");
  EXPECT_TRUE(check.version_mismatch());
  EXPECT_EQ(trainer_problem(check),
            "Kubeflow Trainer v2.1.0 is installed (from its crd label) but this nvcre build "
            "supports v2.2.1");

  observed.crds = {crd("trainjobs.trainer.kubeflow.org"),
                   crd("trainingruntimes.trainer.kubeflow.org")};
  observed.trainer_deployment.reset();
  check = check_trainer(observed);
  EXPECT_TRUE(check.ok());
  EXPECT_EQ(check.version->detected, "");
  EXPECT_NE(trainer_warning(check).find("cannot be determined"), std::string::npos);
}

}  // namespace
}  // namespace nvcre::install
