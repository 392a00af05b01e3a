// `nvcrectl setup init | status | reset` as users run them: the real binary against kube-sim,
// checked with kubectl. `setup status` is pinned on an empty cluster, after init and after reset;
// init installs what `kubectl kustomize deploy/` renders, asks first (only "yes" proceeds), says
// how to install Kubeflow Trainer when it is missing, and converges when re-run; reset deletes the
// custom resources, then the install, and lists what it kept.
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "kubectl_support.hpp"
#include "test/support/cli_workspace.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

using nvcre::testing::CliRun;
using nvcre::testing::read_text;

class CliSetup : public KubectlTest {
 protected:
  // nvcrectl setup <args> --kubeconfig <sim>, `answer` on stdin.
  CliRun setup(const std::string& args, const std::string& answer = "") const {
    const auto out = dir_ / "stdout", err = dir_ / "stderr", in = dir_ / "stdin";
    std::ofstream(in) << answer;
    // In a subshell: run_shell's own 2>&1 must not take stderr away from its file.
    const CommandResult result =
        run_shell("(timeout 60 " + std::string(NVCRECTL_BINARY) + " setup " + args +
                  " --kubeconfig " + (dir_ / "kubeconfig").string() + " <" + in.string() + " >" +
                  out.string() + " 2>" + err.string() + ")");
    return {result.exit_code, read_text(out), read_text(err)};
  }

  // Kubeflow Trainer's CRDs (kube-sim's stand-ins), labelled with the supported version.
  void install_trainer() const {
    for (const char* crd : {"trainjobs", "trainingruntimes"}) {
      auto created = kubectl(
          "create -f " + source("deploy/crds/trainer.kubeflow.org_" + std::string(crd) + ".yaml"));
      ASSERT_EQ(created.exit_code, 0) << created.output;
    }
    auto labelled =
        kubectl("label crd trainjobs.trainer.kubeflow.org app.kubernetes.io/version=v2.2.1");
    ASSERT_EQ(labelled.exit_code, 0) << labelled.output;
  }

  void add_gpu_node() const {
    auto node = kubectl_stdin("create -f -",
                              "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-01\n"
                              "  labels:\n    nvidia.com/gpu.present: \"true\"\n");
    ASSERT_EQ(node.exit_code, 0) << node.output;
  }

  std::set<std::string> names(const std::string& what) const {
    auto result = kubectl("get " + what + " -o name");
    std::set<std::string> out;
    std::istringstream lines(result.output);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) out.insert(line);
    return out;
  }
};

const std::string kTableHead =
    "Component                   Status\n"
    "─────────────────────────   ──────────\n";
const std::string kDcgmNote =
    "\nNote: service gpu-operator/nvidia-dcgm is missing. Only the diagnostics/dcgm-level4\n"
    "      category needs it. Your cluster administrator can add it with:\n"
    "      kubectl patch clusterpolicy cluster-policy --type=merge \\\n"
    "        -p '{\"spec\":{\"dcgm\":{\"enabled\":true}}}'\n";

TEST_F(CliSetup, StatusOnAnEmptyCluster) {
  const CliRun table = setup("status");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out, kTableHead +
                           "NVCRE CRDs                  ✗ not found\n"
                           "NVCRE Controller            ✗ not found\n"
                           "Kubeflow Trainer            ✗ not found\n"
                           "Log Profiles                ✗ not found\n"
                           "GPU Operator                ✗ not found\n"
                           "DCGM (optional)             ✗ not found\n"
                           "\n"
                           "Status: not ready — run 'nvcrectl setup init' to install missing "
                           "components\n"
                           "  Kubeflow Trainer must be installed first: 'nvcrectl setup init' "
                           "says how\n"
                           "  GPU Operator must be installed by your cluster administrator\n" +
                           kDcgmNote);
  const CliRun as_json = setup("status -o json");
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  EXPECT_EQ(json::parse(as_json.out), json::parse(R"({"installed": false,
              "components": {"nvcreCRDs": false, "nvcreController": false,
                             "kubeflowTrainer": false, "logProfiles": false,
                             "gpuOperator": false, "dcgm": false},
              "missing": {"crds": ["certifications.nvcre.nvidia.com",
                                   "workloadruns.nvcre.nvidia.com", "workflows.nvcre.nvidia.com",
                                   "jobs.nvcre.nvidia.com", "goodputmeasurements.nvcre.nvidia.com",
                                   "bandwidthmeasurements.nvcre.nvidia.com",
                                   "logprofiles.nvcre.nvidia.com",
                                   "reportexportpolicies.nvcre.nvidia.com"],
                          "logProfiles": ["nccl-bandwidth", "nccl-loopback", "megatron-training",
                                          "megatron-bridge", "nemo-4-training"]}})"));
}

TEST_F(CliSetup, InitWithoutTrainerSaysHowToInstallItAndInstallsNothing) {
  const CliRun init = setup("init --auto-approve");
  EXPECT_EQ(init.exit_code, 1) << init.err;
  EXPECT_TRUE(contains(init.err,
                       "Error: [deps] Kubeflow Trainer is not installed: CRD "
                       "trainjobs.trainer.kubeflow.org, trainingruntimes.trainer.kubeflow.org "
                       "not found"))
      << init.err;
  EXPECT_TRUE(contains(init.err,
                       "  helm upgrade --install kubeflow-trainer "
                       "oci://ghcr.io/kubeflow/charts/kubeflow-trainer --version 2.2.1 "
                       "--namespace kubeflow-system --create-namespace --wait\n"))
      << init.err;
  EXPECT_TRUE(contains(init.err, "pass --skip-phases=deps")) << init.err;
  EXPECT_TRUE(names("crd").empty());
}

TEST_F(CliSetup, OnlyTheLiteralYesProceeds) {
  install_trainer();
  for (const char* answer : {"y\n", "YES\n", ""}) {
    const CliRun init = setup("init", answer);
    EXPECT_EQ(init.exit_code, 0) << init.err;
    EXPECT_TRUE(contains(init.err,
                         "Do you want to proceed? Only 'yes' will be accepted to "
                         "confirm.\n  Enter a value: "))
        << init.err;
    EXPECT_TRUE(contains(init.err, "    - [deps        ] Kubeflow Trainer v2.2.1")) << init.err;
    EXPECT_TRUE(contains(init.err, "\nInit cancelled.\n")) << init.err;
    EXPECT_EQ(names("crd").size(), 2u) << "answer " << answer;
  }
  const CliRun init = setup("init --skip-phases=deps", "yes\n");
  EXPECT_EQ(init.exit_code, 0) << init.err;
  EXPECT_TRUE(contains(init.err,
                       "    - [deps        ] Kubeflow Trainer v2.2.1 (checked, not "
                       "installed) (skipped)\n"))
      << init.err;
  EXPECT_TRUE(contains(init.err, "[deps] Skipped.\n")) << init.err;
  EXPECT_TRUE(contains(init.err, "\nnvcre 0.1.0 initialized successfully.\n")) << init.err;
}

TEST_F(CliSetup, InitInstallsWhatKustomizeRendersAndStatusFollowsIt) {
  install_trainer();
  add_gpu_node();
  const CliRun init = setup("init --auto-approve");
  ASSERT_EQ(init.exit_code, 0) << init.err;
  EXPECT_TRUE(contains(init.err, "[deps] Kubeflow Trainer v2.2.1 found (crd label).\n"))
      << init.err;
  EXPECT_TRUE(contains(init.err, "  namespace/nvcre created\n")) << init.err;
  EXPECT_TRUE(contains(init.err, "  deployment.apps/nvcre-manager created\n")) << init.err;
  EXPECT_TRUE(contains(init.err, "  logprofile.nvcre.nvidia.com/nccl-bandwidth created\n"))
      << init.err;

  // Every object `kubectl kustomize deploy/` renders is in the cluster, and nothing else of ours.
  const CommandResult rendered = run_shell("timeout 30 kubectl kustomize " + source("deploy"));
  ASSERT_EQ(rendered.exit_code, 0) << rendered.output;
  std::size_t checked = 0;
  for (const auto& object : jsonkit::parse_yaml_documents(rendered.output)) {
    const std::string kind = jsonkit::string_at(object, {"kind"});
    const std::string ns = jsonkit::string_at(object, {"metadata", "namespace"});
    const std::string name = jsonkit::string_at(object, {"metadata", "name"});
    auto live = kubectl("get " + kind + " " + name + (ns.empty() ? "" : " -n " + ns) + " -o json");
    ASSERT_EQ(live.exit_code, 0) << kind << "/" << name << ": " << live.output;
    if (kind == "ClusterRole" || kind == "Role") {
      EXPECT_EQ(parse_json(live).at("rules"), object.at("rules")) << kind << "/" << name;
    }
    if (kind == "Deployment") {
      EXPECT_EQ(parse_json(live).at_pointer("/spec/template/spec/containers"),
                object.at_pointer("/spec/template/spec/containers"));
    }
    ++checked;
  }
  EXPECT_GT(checked, 30u);

  const std::string installed_rows =
      "NVCRE CRDs                  ✓ installed\n"
      "NVCRE Controller            ✗ not found\n"
      "Kubeflow Trainer            ✓ installed (v2.2.1)\n"
      "Log Profiles                ✓ installed\n"
      "GPU Operator                ✓ installed\n"
      "DCGM (optional)             ✗ not found\n"
      "\n";
  CliRun status = setup("status");
  EXPECT_EQ(status.out, kTableHead + installed_rows +
                            "Status: not ready — run 'nvcrectl setup init' to install missing "
                            "components\n" +
                            kDcgmNote);

  // kube-sim runs no Deployment controller: report the manager's replica available by hand.
  auto available = kubectl(
      "patch deployment nvcre-manager -n nvcre --subresource=status --type=merge "
      "-p '{\"status\":{\"replicas\":1,\"availableReplicas\":1}}'");
  ASSERT_EQ(available.exit_code, 0) << available.output;
  status = setup("status");
  std::string ready_rows = installed_rows;
  ready_rows.replace(ready_rows.find("✗ not found"), std::string("✗ not found").size(),
                     "✓ installed");
  EXPECT_EQ(status.out, kTableHead + ready_rows + "Status: ready\n" + kDcgmNote);
  const CliRun as_json = setup("status -o json");
  EXPECT_EQ(json::parse(as_json.out).at("installed"), true) << as_json.out;
}

TEST_F(CliSetup, ReRunningInitRestoresAndUpdatesWhatItOwns) {
  install_trainer();
  ASSERT_EQ(setup("init --auto-approve").exit_code, 0);
  // Drift: a shipped LogProfile deleted, the manager's role edited by hand.
  ASSERT_EQ(kubectl("delete logprofile nccl-loopback").exit_code, 0);
  auto edited = kubectl(
      "patch clusterrole nvcre-manager-role --type=json "
      "-p '[{\"op\":\"remove\",\"path\":\"/rules/0\"}]'");
  ASSERT_EQ(edited.exit_code, 0) << edited.output;
  const CliRun again = setup("init --auto-approve --image registry.example.com/nvcre:1.2.3");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.err, "  logprofile.nvcre.nvidia.com/nccl-loopback created\n"))
      << again.err;
  EXPECT_TRUE(contains(again.err,
                       "  clusterrole.rbac.authorization.k8s.io/nvcre-manager-role configured\n"))
      << again.err;
  EXPECT_EQ(kubectl("get logprofile nccl-loopback -o name").exit_code, 0);
  const CommandResult rendered =
      run_shell("timeout 30 kubectl kustomize " + source("deploy") + " 2>&1");
  for (const auto& object : jsonkit::parse_yaml_documents(rendered.output)) {
    if (jsonkit::string_at(object, {"metadata", "name"}) != "nvcre-manager-role") continue;
    auto live = kubectl("get clusterrole nvcre-manager-role -o json");
    EXPECT_EQ(parse_json(live).at("rules"), object.at("rules"));
  }
  auto image = kubectl(
      "get deployment nvcre-manager -n nvcre -o "
      "jsonpath='{.spec.template.spec.containers[0].image}'");
  EXPECT_EQ(image.output, "registry.example.com/nvcre:1.2.3");
}

TEST_F(CliSetup, ResetDeletesCustomResourcesThenTheInstallAndListsWhatItKept) {
  install_trainer();
  ASSERT_EQ(setup("init --auto-approve").exit_code, 0);
  create_namespace("gpu-validation");
  auto created = kubectl("create -f " + source("examples/certification.yaml"));
  ASSERT_EQ(created.exit_code, 0) << created.output;
  const std::string certification = *names("certifications -n gpu-validation").begin();

  const CliRun declined = setup("reset", "no\n");
  EXPECT_EQ(declined.exit_code, 0) << declined.err;
  EXPECT_TRUE(contains(declined.err, "\nReset cancelled.\n")) << declined.err;
  EXPECT_EQ(names("certifications -n gpu-validation").size(), 1u);

  const CliRun reset = setup("reset", "yes\n");
  ASSERT_EQ(reset.exit_code, 0) << reset.err;
  EXPECT_TRUE(
      contains(reset.err, "[cr] Deleting nvcre custom resources...\n  Certification/" +
                              certification.substr(certification.find('/') + 1) +
                              " (namespace: gpu-validation) deleted\n  All nvcre custom resources "
                              "removed.\n"))
      << reset.err;
  EXPECT_TRUE(contains(reset.err, "  deployment.apps/nvcre-manager deleted\n")) << reset.err;
  EXPECT_TRUE(contains(reset.err, "  All nvcre CRDs removed.\n")) << reset.err;
  EXPECT_TRUE(contains(reset.err,
                       "\nRetained resources (not removed by reset):\n"
                       "  - Namespace nvcre\n"
                       "      kubectl delete namespace nvcre\n"
                       "  - Kubeflow Trainer (not installed by nvcrectl)\n"
                       "      helm uninstall kubeflow-trainer --namespace kubeflow-system\n"
                       "\nnvcre reset successfully.\n"))
      << reset.err;
  EXPECT_EQ(names("crd"), (std::set<std::string>{"customresourcedefinition.apiextensions.k8s.io/"
                                                 "trainingruntimes.trainer.kubeflow.org",
                                                 "customresourcedefinition.apiextensions.k8s.io/"
                                                 "trainjobs.trainer.kubeflow.org"}));
  EXPECT_TRUE(names("clusterroles -l app.kubernetes.io/part-of=nvcre").empty());

  const CliRun status = setup("status");
  EXPECT_EQ(status.out, kTableHead +
                            "NVCRE CRDs                  ✗ not found\n"
                            "NVCRE Controller            ✗ not found\n"
                            "Kubeflow Trainer            ✓ installed (v2.2.1)\n"
                            "Log Profiles                ✗ not found\n"
                            "GPU Operator                ✗ not found\n"
                            "DCGM (optional)             ✗ not found\n"
                            "\n"
                            "Status: not ready — run 'nvcrectl setup init' to install missing "
                            "components\n"
                            "  GPU Operator must be installed by your cluster administrator\n" +
                            kDcgmNote);
}

TEST_F(CliSetup, BadFlagsFailWithTheReason) {
  const CliRun phase = setup("init --auto-approve --skip-phases=deps,bogus");
  EXPECT_EQ(phase.exit_code, 1);
  EXPECT_TRUE(contains(phase.err,
                       "Error: --skip-phases: unknown phase \"bogus\" (valid phases: "
                       "deps, install)"))
      << phase.err;
  const CliRun ns = setup("init -n x");
  EXPECT_EQ(ns.exit_code, 1);
  EXPECT_TRUE(contains(ns.err, "Error: ")) << ns.err;
  const CliRun output = setup("status -o yaml");
  EXPECT_EQ(output.exit_code, 1);
}

}  // namespace
}  // namespace nvcre::sim::testing
