// The install's RBAC on an enforcing kube-sim (access control on, as `kube-sim --authorization
// rbac --admin-token T`): installed with `kubectl apply -k deploy/`, the real nvcre-manager, run
// as the installed ServiceAccount with the token `kubectl create token` gives it, certifies the
// demo Certification to its verdict without one denied request; with any one rule of its
// ClusterRole removed it is denied and its log names the permission it lacks; `kubectl auth can-i`
// as the ServiceAccount refuses what the manager must never do.
#include "jsonkit/paths.hpp"
#include "k8s/rest_client.hpp"
#include "kubectl_support.hpp"
#include "sim/cluster_profile.hpp"
#include "test/support/child_process.hpp"
#include "test/support/eventually.hpp"
#include "test/support/verdict.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <iostream>
#include <iterator>
#include <string_view>
#include <string>
#include <vector>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;
using std::chrono::seconds;

const std::string kAdminToken = "deploy-rbac-admin-token";
const std::string kManagerUser = "system:serviceaccount:nvcre:nvcre-manager";
// examples/demo-certification.yaml's
const std::string kDemoNamespace = "gpu-validation";
const std::string kDemoName = "demo-burnin";
const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications", true};

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// kubectl auth can-i's answer: its last line (a warning may come first, e.g. that a cluster-scoped
// resource ignores the context's namespace).
std::string answer_of(const CommandResult& result) {
  const std::string text = trimmed(result.output);
  return text.substr(text.find_last_of('\n') == std::string::npos ? 0
                                                                  : text.find_last_of('\n') + 1);
}

class DeployRbac : public KubectlTest {
 protected:
  // HTTPS with a throwaway self-signed certificate: client-go sends bearer tokens over https only.
  void configure(KubeSimOptions& options) override {
    const CommandResult made = run_shell(
        "cd " + dir_.string() +
        " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tls.key"
        " -out tls.crt -days 2 -subj /CN=kube-sim -addext subjectAltName=IP:127.0.0.1");
    ASSERT_EQ(made.exit_code, 0) << made.output;
    KubeSimTls tls;
    tls.cert_file = ca_file();
    tls.key_file = (dir_ / "tls.key").string();
    options.tls = tls;
    options.api.access.rbac = true;
    options.api.access.admin_token = kAdminToken;
    // The demo's pool, at the size its one group of nodesPerJob: 4 needs.
    options.api.cluster = parse_cluster_profile("aws:h100:4");
    options.api.trainer.enabled = true;
    options.api.trainer.step = std::chrono::milliseconds(50);
  }

  std::string ca_file() const { return (dir_ / "tls.crt").string(); }
  std::string kubeconfig_cluster_fields() const override {
    return "    certificate-authority: " + ca_file() + "\n";
  }

  // The admin's client, for what the test reads (verdicts, /sim/stats).
  k8s::RestClient& admin() {
    if (!admin_) {
      k8s::ClientConfig config;
      config.server = sim_->url();
      config.bearer_token = kAdminToken;
      config.ca_file = ca_file();
      config.rate_limit.qps = -1;
      admin_ = std::make_unique<k8s::RestClient>(config);
    }
    return *admin_;
  }

  // The documented install, as the cluster admin: the Trainer's CRDs (a prerequisite, here the
  // test fixtures beside nvcre's), then deploy/crds, then deploy/.
  void install() {
    for (const char* crd :
         {"trainer.kubeflow.org_trainingruntimes.yaml", "trainer.kubeflow.org_trainjobs.yaml",
          "resource.nvidia.com_computedomains.yaml"}) {
      const CommandResult created =
          kubectl("create -f " + source(std::string("deploy/crds/") + crd));
      ASSERT_EQ(created.exit_code, 0) << created.output;
    }
    for (const char* step : {"deploy/crds", "deploy"}) {
      const CommandResult applied = kubectl("apply -k " + source(step));
      ASSERT_EQ(applied.exit_code, 0) << applied.output;
    }
  }

  json::value manager_role() {
    const CommandResult role = kubectl("get clusterrole nvcre-manager-role -o json");
    EXPECT_EQ(role.exit_code, 0) << role.output;
    return parse_json(role);
  }

  // Replaces the installed manager ClusterRole with one without rule `index`; returns that rule.
  json::value remove_rule(std::size_t index) {
    json::value role = manager_role();
    json::array& rules = role.at("rules").as_array();
    EXPECT_LT(index, rules.size());
    json::value removed = rules.at(index);
    rules.erase(rules.begin() + static_cast<std::ptrdiff_t>(index));
    const CommandResult replaced = kubectl_stdin("replace -f -", json::serialize(role));
    EXPECT_EQ(replaced.exit_code, 0) << replaced.output;
    return removed;
  }

  std::string manager_token() {
    const CommandResult token = kubectl("create token nvcre-manager -n nvcre");
    EXPECT_EQ(token.exit_code, 0) << token.output;
    return trimmed(token.output);
  }

  void create_demo_certification() {
    create_namespace(kDemoNamespace);
    const CommandResult created =
        kubectl("create -f " + source("examples/demo-certification.yaml"));
    ASSERT_EQ(created.exit_code, 0) << created.output;
  }

  // The real manager as the ServiceAccount, with leader election in its namespace as deployed.
  std::unique_ptr<nvcre::testing::ManagerChild> start_manager(const std::string& token,
                                                              const std::string& tag) {
    return std::make_unique<nvcre::testing::ManagerChild>(
        NVCRE_MANAGER_BINARY, sim_->url(),
        std::vector<std::string>{"--leader-elect", "--leader-election-namespace", "nvcre"}, tag,
        token, ca_file());
  }

  nvcre::testing::Verdict demo_verdict() {
    return nvcre::testing::verdict_of(admin().get(kCertifications, kDemoNamespace, kDemoName));
  }

  // kube-sim's /sim/stats, as any client reads it.
  json::value stats() {
    const k8s::RestResponse answer =
        admin().request({"GET", "/sim/stats", {{"recent", "0"}}, "", ""});
    return json::parse(answer.body);
  }

  std::uint64_t denied_to_manager() {
    const json::value all = stats();
    const json::value* denied = all.at("deniedByUser").as_object().if_contains(kManagerUser);
    return denied == nullptr ? 0 : denied->to_number<std::uint64_t>();
  }

  std::unique_ptr<k8s::RestClient> admin_;
};

TEST_F(DeployRbac, TheManagerCertifiesTheDemoAsItsServiceAccountWithNothingDenied) {
  install();
  create_demo_certification();
  const std::string token = manager_token();
  ASSERT_FALSE(token.empty());
  auto manager = start_manager(token, "rbac-allowed");
  const bool decided = nvcre::test::eventually([&] { return !demo_verdict().type.empty(); },
                                               seconds(180), std::chrono::milliseconds(200));
  const std::string log = manager->log();
  ASSERT_TRUE(decided) << "no verdict; manager log:\n" << log;
  EXPECT_EQ(demo_verdict().type, "Succeeded") << demo_verdict().message;
  EXPECT_EQ(denied_to_manager(), 0u) << log;
  EXPECT_EQ(stats().at("denied"), 0) << json::serialize(stats().at("deniedByUser"));
  EXPECT_FALSE(contains(log, "API request refused")) << log;
  EXPECT_FALSE(contains(log, token)) << "the manager logged its token";
}

TEST_F(DeployRbac, CanIAsTheServiceAccountRefusesWhatTheManagerMustNeverDo) {
  install();
  const std::string token = manager_token();
  auto can_i = [&](const std::string& args) {
    return kubectl("--token=" + token + " auth can-i " + args);
  };
  for (const char* forbidden :
       {"get secrets -n nvcre", "get secrets --all-namespaces", "update nodes", "patch nodes",
        "delete pods -n gpu-validation", "create pods -n gpu-validation"}) {
    const CommandResult answer = can_i(forbidden);
    EXPECT_EQ(answer_of(answer), "no") << forbidden << ": " << answer.output;
    EXPECT_EQ(answer.exit_code, 1) << forbidden;
  }
  for (const char* needed :
       {"watch pods --all-namespaces", "get pods --subresource=log -n gpu-validation",
        "patch certifications.nvcre.nvidia.com --subresource=status -n gpu-validation",
        "create trainjobs.trainer.kubeflow.org -n gpu-validation", "list nodes",
        "update leases.coordination.k8s.io -n nvcre", "create events -n gpu-validation"}) {
    const CommandResult answer = can_i(needed);
    EXPECT_EQ(answer_of(answer), "yes") << needed << ": " << answer.output;
    EXPECT_EQ(answer.exit_code, 0) << needed;
  }
  // The answers are the ServiceAccount's, not the admin's: the admin may read secrets.
  EXPECT_EQ(answer_of(kubectl("auth can-i get secrets -n nvcre")), "yes");
}

// A run that needs a rule: the demo (NCCL on the AWS H100 pool), a checkpointed training run
// (its PersistentVolumeClaim), NCCL on GB200 (its ComputeDomain), NCCL on AWS GB300 (its RoCE
// ResourceClaimTemplate) or NCCL on H100 nodes without a product label (their ResourceSlices).
enum class Scenario { Demo, CheckpointedTraining, Gb200, AwsGb300, DraOnly };

// One rule of the manager's ClusterRole, named by its resources as deploy/manager/manager_role.yaml
// lists them, and a run that cannot go on without it.
struct RuleCase {
  const char* resources;
  Scenario scenario;
};

void PrintTo(const RuleCase& rule, std::ostream* out) { *out << rule.resources; }

const RuleCase kRules[] = {
    {"configmaps", Scenario::Demo},
    {"nodes,pods", Scenario::Demo},
    {"persistentvolumeclaims", Scenario::CheckpointedTraining},
    {"persistentvolumes", Scenario::CheckpointedTraining},
    {"pods/log", Scenario::Demo},
    {"events", Scenario::Demo},
    {"bandwidthmeasurements,certifications,goodputmeasurements,jobs,workflows,workloadruns",
     Scenario::Demo},
    {"bandwidthmeasurements/finalizers,certifications/finalizers,goodputmeasurements/finalizers,"
     "jobs/finalizers,workflows/finalizers,workloadruns/finalizers",
     Scenario::Demo},
    {"bandwidthmeasurements/status,certifications/status,goodputmeasurements/status,jobs/status,"
     "workflows/status,workloadruns/status",
     Scenario::Demo},
    {"logprofiles", Scenario::Demo},
    {"resourceclaimtemplates", Scenario::AwsGb300},
    {"resourceslices", Scenario::DraOnly},
    {"computedomains", Scenario::Gb200},
    {"trainingruntimes", Scenario::Demo},
    {"trainjobs", Scenario::Demo},
};

// A scenario's Certification besides the demo: one category over every GPU node, in the demo's
// namespace.
std::string scenario_certification(const std::string& name, const std::string& category,
                                   const std::string& options) {
  const auto slash = category.find('/');
  return "apiVersion: nvcre.nvidia.com/v1alpha1\nkind: Certification\n"
         "metadata: {name: " +
         name + ", namespace: " + kDemoNamespace +
         "}\n"
         "spec:\n  target: {nodeSelector: {nvidia.com/gpu.present: \"true\"}}\n"
         "  categories:\n  - domain: " +
         category.substr(0, slash) + "\n    variant: " + category.substr(slash + 1) +
         "\n    options: " + options + "\n";
}

std::string joined(const json::value& rule, std::string_view field) {
  std::string out;
  for (const auto& item : rule.at(field).as_array())
    out += (out.empty() ? "" : ",") + std::string(item.as_string());
  return out;
}

// The permissions the rule grants, as a 403 message words the refusal of each.
std::vector<std::string> refusals_of(const json::value& rule) {
  std::vector<std::string> out;
  for (const auto& verb : rule.at("verbs").as_array())
    for (const auto& resource : rule.at("resources").as_array())
      for (const auto& group : rule.at("apiGroups").as_array())
        out.push_back("cannot " + std::string(verb.as_string()) + " resource \"" +
                      std::string(resource.as_string()) + "\" in API group \"" +
                      std::string(group.as_string()) + "\"");
  return out;
}

TEST_F(DeployRbac, TheRuleTableListsEveryRuleOfTheManagersClusterRole) {
  install();
  const json::value role = manager_role();
  const auto& rules = role.at("rules").as_array();
  ASSERT_EQ(rules.size(), std::size(kRules));
  for (std::size_t i = 0; i < rules.size(); ++i)
    EXPECT_EQ(joined(rules[i], "resources"), kRules[i].resources) << "rule " << i;
}

class DeployRbacRule : public DeployRbac, public ::testing::WithParamInterface<RuleCase> {
 protected:
  void configure(KubeSimOptions& options) override {
    DeployRbac::configure(options);
    if (GetParam().scenario == Scenario::Gb200)
      options.api.cluster = parse_cluster_profile("aws:gb200:4");
    if (GetParam().scenario == Scenario::AwsGb300)
      options.api.cluster = parse_cluster_profile("aws:gb300:4");
  }

  void create_scenario() {
    switch (GetParam().scenario) {
      case Scenario::Demo:
        create_demo_certification();
        return;
      case Scenario::DraOnly:
        strip_product_labels_and_publish_slices();
        [[fallthrough]];
      case Scenario::CheckpointedTraining:
      case Scenario::Gb200:
      case Scenario::AwsGb300: {
        create_namespace(kDemoNamespace);
        const CommandResult created = kubectl_stdin(
            "create -f -",
            GetParam().scenario == Scenario::CheckpointedTraining
                ? scenario_certification("rbac-checkpoint", "training/nemotron5-8b",
                                         "{nodesPerJob: 4, maxSteps: 50, enableCheckpoint: true}")
                : scenario_certification("rbac-nccl", "communication/nccl-all-reduce",
                                         "{nodesPerJob: 4}"));
        ASSERT_EQ(created.exit_code, 0) << created.output;
        return;
      }
    }
  }

  // The pool as a DRA-only platform shows it: no GFD product label, the NVIDIA DRA driver's
  // ResourceSlice per node naming its GPUs.
  void strip_product_labels_and_publish_slices() {
    const CommandResult unlabelled = kubectl("label nodes --all nvidia.com/gpu.product-");
    ASSERT_EQ(unlabelled.exit_code, 0) << unlabelled.output;
    for (int i = 0; i < 4; ++i) {
      const std::string node = "gpu-node-0" + std::to_string(i);
      const CommandResult created = kubectl_stdin(
          "create -f -",
          "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + node +
              "-gpu}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: " + node +
              "\n  pool: {name: " + node +
              ", generation: 1, resourceSliceCount: 1}\n  devices:\n  - name: gpu-0\n"
              "    attributes: {productName: {string: NVIDIA H100 80GB HBM3}}\n");
      ASSERT_EQ(created.exit_code, 0) << created.output;
    }
  }

  std::size_t index() const {
    for (std::size_t i = 0; i < std::size(kRules); ++i)
      if (std::string_view(kRules[i].resources) == GetParam().resources) return i;
    return std::size(kRules);
  }
};

TEST_P(DeployRbacRule, WithoutItTheManagerIsDeniedAndSaysWhichPermissionItLacks) {
  install();
  const json::value removed = remove_rule(index());
  ASSERT_EQ(joined(removed, "resources"), GetParam().resources);
  create_scenario();
  const std::string token = manager_token();
  auto manager = start_manager(token, "rbac-rule");
  // The first denial is the answer: what follows it (retries, a stalled run) adds nothing.
  ASSERT_TRUE(nvcre::test::eventually([&] { return denied_to_manager() > 0; }, seconds(180),
                                      std::chrono::milliseconds(100)))
      << "never denied; log:\n"
      << manager->log();
  std::string log;
  const auto refusals = refusals_of(removed);
  const bool named = nvcre::test::eventually([&] {
    log = manager->log();
    for (const auto& refusal : refusals)
      if (contains(log, refusal)) return true;
    return false;
  });
  EXPECT_TRUE(named) << "the log names none of the rule's permissions; log:\n" << log;
  EXPECT_TRUE(contains(log, "API request refused (403 Forbidden)")) << log;
  EXPECT_FALSE(contains(log, token)) << "the manager logged its token";
}

INSTANTIATE_TEST_SUITE_P(EachRule, DeployRbacRule, ::testing::ValuesIn(kRules),
                         [](const ::testing::TestParamInfo<RuleCase>& info) {
                           std::string name = "rule" + std::to_string(info.index) + "_";
                           for (const char* c = info.param.resources; *c && *c != ','; ++c)
                             name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
                           return name;
                         });

}  // namespace
}  // namespace nvcre::sim::testing
