// What a user hands nvcre never shows where others read it. The manager reaches kube-sim over
// HTTPS with a bearer token and a client certificate (its private key inline in the kubeconfig);
// `nvcrectl certification run` puts a registry password in a pull secret. A Certification is
// certified at every log level, and then none of those secrets appears in the manager's log, the
// CLI's output, the Events, or the objects nvcre wrote. A manager with a wrong token, and one whose
// client key does not match its certificate, fail without printing either.
#include "k8s/api_error.hpp"
#include "kubectl_support.hpp"
#include "sim/cluster_profile.hpp"
#include "test/support/child_process.hpp"
#include "test/support/eventually.hpp"
#include "test_pki.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <string>
#include <vector>

namespace nvcre::sim::testing {
namespace {

using nvcre::testing::base64;
using nvcre::testing::Pki;
using std::chrono::milliseconds;

const std::string kToken = "bearer-secret-7f3a9c1e5d";
const std::string kPassword = "registry-secret-4b8d2e6a";
const std::string kRegistryUser = "robot";
const std::string kRunNamespace = "secrets";

std::string slurp(const std::string& path) { return nvcre::testing::read_text(path); }

class SecretsExposure : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override {
    const Pki& pki = Pki::get();
    KubeSimTls tls;
    tls.cert_file = pki.path("server.crt");
    tls.key_file = pki.path("server.key");
    tls.client_ca_file = pki.path("ca.crt");
    options.tls = tls;
    options.token = kToken;
    options.api.cluster = parse_cluster_profile("aws:h100:2");
    options.api.trainer.enabled = true;
    options.api.trainer.step = milliseconds(20);
  }
  std::string kubeconfig_cluster_fields() const override {
    return "    certificate-authority: " + Pki::get().path("ca.crt") + "\n";
  }
  std::string kubeconfig_user_fields() const override {
    return "    client-certificate-data: " + base64(Pki::get().pem("client.crt")) +
           "\n    client-key-data: " + base64(Pki::get().pem(client_key_)) + "\n";
  }
  std::string kubeconfig() const { return (dir_ / "kubeconfig").string(); }

  // The kubeconfig as the manager gets it: the user's, or with a wrong token.
  std::string manager_kubeconfig(const std::string& token) const {
    std::string text = slurp(kubeconfig());
    const auto at = text.find(kToken);
    if (at != std::string::npos) text.replace(at, kToken.size(), token);
    const auto path = (dir_ / ("manager-" + token.substr(0, 5) + ".kubeconfig")).string();
    std::ofstream(path) << text;
    return path;
  }

  // Starts the real manager at `level` (probes on an ephemeral port, metrics off); its stderr in
  // `log`.
  pid_t start_manager(const std::string& kubeconfig_path, const std::string& level,
                      const std::string& log) const {
    return nvcre::testing::spawn_with_log(
        {NVCRE_MANAGER_BINARY, "--kubeconfig", kubeconfig_path, "--health-probe-bind-address",
         "127.0.0.1:0", "--metrics-bind-address", "0", "--log-level", level},
        log);
  }

  // Every fragment that would give a secret away, with a name for the failure message (never
  // the fragment itself).
  std::vector<std::pair<std::string, std::string>> secrets() const {
    const Pki& pki = Pki::get();
    return {{"the bearer token", kToken},
            {"the registry password", kPassword},
            {"the registry password, base64", base64(kPassword)},
            {"the registry auth, base64", base64(kRegistryUser + ":" + kPassword)},
            {"the client key", pki.key_fragment("client.key")},
            {"the client key, base64", base64(pki.pem("client.key")).substr(40, 24)},
            {"the server key", pki.key_fragment("server.key")},
            {"a PEM private key", "PRIVATE KEY"}};
  }

  void expect_no_secret(const std::string& where, const std::string& text) const {
    for (const auto& [name, fragment] : secrets())
      EXPECT_EQ(text.find(fragment), std::string::npos) << where << " shows " << name;
  }

  std::string client_key_ = "client.key";
};

void stop(pid_t pid) {
  ::kill(pid, SIGTERM);
  const bool exited =
      nvcre::test::eventually([&] { return ::waitpid(pid, nullptr, WNOHANG) == pid; },
                              std::chrono::seconds(20), milliseconds(50));
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
}

class SecretsAtLogLevel : public SecretsExposure,
                          public ::testing::WithParamInterface<std::string> {};

TEST_P(SecretsAtLogLevel, NoSecretInTheLogTheCliOutputEventsOrObjects) {
  const std::string level = GetParam();
  create_crds();
  const std::string log = (dir_ / ("manager-" + level + ".log")).string();
  const pid_t manager = start_manager(manager_kubeconfig(kToken), level, log);
  const CommandResult run =
      run_shell(std::string(NVCRECTL_BINARY) +
                " certification run --category diagnostics/dcgm-level1 --name secrets-run -n " +
                kRunNamespace + " --wait --timeout 3m --workload-registry registry.example.com" +
                " --workload-registry-username " + kRegistryUser +
                " --workload-registry-password " + kPassword + " --kubeconfig " + kubeconfig());
  stop(manager);
  const std::string manager_log = slurp(log);
  EXPECT_EQ(run.exit_code, 0) << run.output << "\nmanager log:\n" << manager_log;
  // The pull secret was made from the password (else the CLI check below checks nothing).
  const CommandResult secret = kubectl("get secret nvcrectl-pull-secrets-run -n " + kRunNamespace +
                                       " -o 'jsonpath={.data.\\.dockerconfigjson}'");
  ASSERT_EQ(secret.exit_code, 0) << secret.output;
  EXPECT_NE(secret.output.find(base64("{\"auths\":")), std::string::npos) << secret.output;
  if (level == "debug" || level == "trace") {  // a line per API call: the most there is to leak
    EXPECT_NE(manager_log.find("api Create"), std::string::npos) << manager_log;
  }

  expect_no_secret("the manager's log at " + level, manager_log);
  expect_no_secret("nvcrectl certification run's output", run.output);
  const CommandResult events = kubectl("get events -A -o json");
  ASSERT_EQ(events.exit_code, 0) << events.output;
  EXPECT_NE(events.output.find("\"reason\""), std::string::npos) << "no Event to check";
  expect_no_secret("the Events", events.output);
  const CommandResult objects = kubectl(
      "get certifications,workflows,jobs.nvcre.nvidia.com,trainjobs,trainingruntimes,configmaps "
      "-A -o json");
  ASSERT_EQ(objects.exit_code, 0) << objects.output.substr(0, 1500);
  expect_no_secret("the objects nvcre wrote", objects.output);
}

INSTANTIATE_TEST_SUITE_P(EveryLevel, SecretsAtLogLevel,
                         ::testing::Values("trace", "debug", "info", "warn", "error"));

TEST_F(SecretsExposure, AWrongTokenFailsWithoutPrintingIt) {
  const std::string wrong = "wrong-" + kToken;
  const std::string log = (dir_ / "manager-wrong-token.log").string();
  const pid_t manager = start_manager(manager_kubeconfig(wrong), "debug", log);
  const bool exited =
      nvcre::test::eventually([&] { return slurp(log).find("401") != std::string::npos; },
                              std::chrono::seconds(30), milliseconds(100));
  stop(manager);
  const std::string manager_log = slurp(log);
  EXPECT_TRUE(exited) << "the refusal was not logged:\n" << manager_log;
  expect_no_secret("the manager's log", manager_log);
  EXPECT_EQ(manager_log.find(wrong), std::string::npos) << "the wrong token was logged";
}

TEST_F(SecretsExposure, AClientKeyThatDoesNotMatchFailsWithoutPrintingIt) {
  client_key_ = "server.key";  // a valid key, but not the certificate's
  const std::string kubeconfig_path = (dir_ / "mismatched.kubeconfig").string();
  std::ofstream(kubeconfig_path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: sim\n"
                                    "  cluster:\n    server: "
                                 << sim_->url() << "\n"
                                 << kubeconfig_cluster_fields()
                                 << "contexts:\n- name: sim\n  context: {cluster: sim, user: u}\n"
                                    "current-context: sim\nusers:\n- name: u\n  user:\n"
                                 << kubeconfig_user_fields();
  const std::string log = (dir_ / "manager-mismatched.log").string();
  const pid_t manager = start_manager(kubeconfig_path, "debug", log);
  const bool said =
      nvcre::test::eventually([&] { return slurp(log).find("key") != std::string::npos; },
                              std::chrono::seconds(30), milliseconds(100));
  stop(manager);
  const std::string manager_log = slurp(log);
  EXPECT_TRUE(said) << "the bad key was not named:\n" << manager_log;
  expect_no_secret("the manager's log", manager_log);
}

}  // namespace
}  // namespace nvcre::sim::testing
