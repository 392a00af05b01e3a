// kubectl's connection flags resolved by k8s::resolve_connection: the search order (kubectl and
// controller), the flag overrides, and errors that name the file / context / server and never a
// token.
#include "k8s/connection.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace nvcre::k8s {
namespace {

namespace fs = std::filesystem;

const std::string kToken = "flag-token-7d1e2b";

std::string kubeconfig_text(const std::string& server, const std::string& ns = {}) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: main\n"
         "clusters:\n- name: c\n  cluster:\n    server: " +
         server +
         "\n"
         "contexts:\n- name: main\n  context:\n    cluster: c\n    user: u\n" +
         (ns.empty() ? "" : "    namespace: " + ns + "\n") +
         "- name: other\n  context:\n    cluster: c\n    user: u\n    namespace: other-ns\n"
         "users:\n- name: u\n  user:\n    token: file-token\n";
}

class Connection : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("nvcre-connection-" + std::to_string(rd()));
    fs::create_directories(dir_ / "home" / ".kube");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    auto path = dir_ / name;
    std::ofstream(path) << text;
    return path;
  }
  ConnectionEnvironment environment() {
    ConnectionEnvironment env;
    env.getenv = [this](const char* name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
    env.in_cluster.token_file = dir_ / "sa" / "token";
    env.in_cluster.ca_file = dir_ / "sa" / "ca.crt";
    env.in_cluster.namespace_file = dir_ / "sa" / "namespace";
    return env;
  }
  void make_in_cluster() {
    fs::create_directories(dir_ / "sa");
    write("sa/token", "sa-token");
    write("sa/ca.crt", "CA");
    write("sa/namespace", "pod-ns");
    env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
    env_["KUBERNETES_SERVICE_PORT"] = "443";
  }
  std::string error_of(const ConnectionOverrides& overrides, ConfigSearch search) {
    try {
      resolve_connection(overrides, search, environment());
    } catch (const ConfigError& error) {
      EXPECT_EQ(std::string(error.what()).find(kToken), std::string::npos);
      return error.what();
    }
    ADD_FAILURE() << "no ConfigError";
    return {};
  }

  fs::path dir_;
  std::map<std::string, std::string> env_;
};

TEST_F(Connection, ExplicitKubeconfigWinsOverEnvironment) {
  auto flag = write("flag.yaml", kubeconfig_text("https://flag:6443"));
  env_["KUBECONFIG"] = write("env.yaml", kubeconfig_text("https://env:6443")).string();
  ConnectionOverrides overrides;
  overrides.kubeconfig = flag.string();
  EXPECT_EQ(resolve_connection(overrides, ConfigSearch::Kubectl, environment()).server,
            "https://flag:6443");
}

TEST_F(Connection, KubeconfigEnvTakesTheFirstExistingEntry) {
  auto second = write("second.yaml", kubeconfig_text("https://second:6443"));
  env_["KUBECONFIG"] = (dir_ / "missing.yaml").string() + ":" + second.string();
  env_["HOME"] = (dir_ / "home").string();
  write("home/.kube/config", kubeconfig_text("https://home:6443"));
  EXPECT_EQ(resolve_connection({}, ConfigSearch::Kubectl, environment()).server,
            "https://second:6443");
}

TEST_F(Connection, KubectlPrefersHomeConfigToInCluster) {
  make_in_cluster();
  env_["HOME"] = (dir_ / "home").string();
  write("home/.kube/config", kubeconfig_text("https://home:6443"));
  EXPECT_EQ(resolve_connection({}, ConfigSearch::Kubectl, environment()).server,
            "https://home:6443");
  EXPECT_EQ(resolve_connection({}, ConfigSearch::Controller, environment()).server,
            "https://10.96.0.1:443");
}

TEST_F(Connection, InClusterWhenNoKubeconfigExists) {
  make_in_cluster();
  env_["HOME"] = (dir_ / "home").string();  // no config file in it
  const auto config = resolve_connection({}, ConfigSearch::Kubectl, environment());
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.ns, "pod-ns");
}

TEST_F(Connection, NamespaceFlagThenContextNamespaceThenDefault) {
  auto file = write("k.yaml", kubeconfig_text("https://k:6443", "ctx-ns"));
  ConnectionOverrides overrides;
  overrides.kubeconfig = file.string();
  EXPECT_EQ(resolve_connection(overrides, ConfigSearch::Kubectl, environment()).ns, "ctx-ns");
  overrides.context = "other";
  EXPECT_EQ(resolve_connection(overrides, ConfigSearch::Kubectl, environment()).ns, "other-ns");
  overrides.ns = "flag-ns";
  EXPECT_EQ(resolve_connection(overrides, ConfigSearch::Kubectl, environment()).ns, "flag-ns");
  auto bare = write("bare.yaml", kubeconfig_text("https://k:6443"));
  overrides = {};
  overrides.kubeconfig = bare.string();
  EXPECT_EQ(resolve_connection(overrides, ConfigSearch::Kubectl, environment()).ns, "default");
}

TEST_F(Connection, FlagsOverrideTheKubeconfig) {
  auto file = write("k.yaml", kubeconfig_text("https://k:6443"));
  auto ca = write("ca.pem", "CA");
  ConnectionOverrides overrides;
  overrides.kubeconfig = file.string();
  overrides.server = "http://127.0.0.1:8080";
  overrides.token = kToken;
  overrides.certificate_authority = ca.string();
  overrides.tls_server_name = "api.internal";
  const auto config = resolve_connection(overrides, ConfigSearch::Kubectl, environment());
  EXPECT_EQ(config.server, "http://127.0.0.1:8080");
  EXPECT_EQ(config.bearer_token, kToken);
  EXPECT_EQ(config.ca_file, ca.string());
  EXPECT_EQ(config.tls_server_name, "api.internal");
  EXPECT_EQ(config.describe().find(kToken), std::string::npos);
}

TEST_F(Connection, InsecureFlagDropsTheKubeconfigCa) {
  auto file = write("k.yaml",
                    "apiVersion: v1\nkind: Config\ncurrent-context: m\nclusters:\n"
                    "- name: c\n  cluster:\n    server: https://k:6443\n"
                    "    certificate-authority-data: Q0E=\ncontexts:\n- name: m\n"
                    "  context:\n    cluster: c\n");
  ConnectionOverrides overrides;
  overrides.kubeconfig = file.string();
  overrides.insecure_skip_tls_verify = true;
  const auto config = resolve_connection(overrides, ConfigSearch::Kubectl, environment());
  EXPECT_TRUE(config.insecure_skip_tls_verify);
  EXPECT_TRUE(config.ca_data.empty());
}

TEST_F(Connection, ServerAndTokenAloneNeedNoKubeconfig) {
  ConnectionOverrides overrides;
  overrides.server = "https://api:6443";
  overrides.token = kToken;
  const auto config = resolve_connection(overrides, ConfigSearch::Kubectl, environment());
  EXPECT_EQ(config.server, "https://api:6443");
  EXPECT_EQ(config.ns, "default");
}

TEST_F(Connection, ErrorsNameWhatIsWrongAndWhatToDo) {
  ConnectionOverrides overrides;
  overrides.token = kToken;
  {
    const auto message = error_of(overrides, ConfigSearch::Kubectl);
    EXPECT_NE(message.find("no cluster to connect to"), std::string::npos) << message;
    EXPECT_NE(message.find("--kubeconfig"), std::string::npos) << message;
  }
  overrides.kubeconfig = (dir_ / "nope.yaml").string();
  EXPECT_NE(error_of(overrides, ConfigSearch::Kubectl).find("--kubeconfig " + overrides.kubeconfig),
            std::string::npos);
  overrides.kubeconfig = write("k.yaml", kubeconfig_text("https://k:6443")).string();
  overrides.context = "missing";
  const auto context_message = error_of(overrides, ConfigSearch::Kubectl);
  EXPECT_NE(context_message.find("context \"missing\" not found; available: main, other"),
            std::string::npos)
      << context_message;
  overrides.context.clear();
  overrides.server = "api:6443";
  EXPECT_NE(error_of(overrides, ConfigSearch::Kubectl).find("--server \"api:6443\""),
            std::string::npos);
  overrides.server.clear();
  overrides.certificate_authority = (dir_ / "no-ca.pem").string();
  EXPECT_NE(error_of(overrides, ConfigSearch::Kubectl).find("--certificate-authority"),
            std::string::npos);
  overrides.certificate_authority.clear();
  overrides.client_certificate = write("cert.pem", "CERT").string();
  EXPECT_NE(error_of(overrides, ConfigSearch::Kubectl).find("--client-key"), std::string::npos);
}

TEST_F(Connection, ContextWithoutAnyKubeconfigSaysSo) {
  ConnectionOverrides overrides;
  overrides.context = "lab";
  EXPECT_NE(error_of(overrides, ConfigSearch::Kubectl).find("--context lab"), std::string::npos);
}

}  // namespace
}  // namespace nvcre::k8s
