// kubeconfig + in-cluster loading: every source and field, error messages, and no secret ever in
// an error or in describe().
#include "k8s/kubeconfig.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace nvcre::k8s {
namespace {

namespace fs = std::filesystem;

const std::string kToken = "sekret-token-4f9a1c";
const std::string kKey = "-----BEGIN PRIVATE KEY-----\nS3CR3TKEYBYTES\n-----END PRIVATE KEY-----\n";
const std::string kKeyB64 =
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClMzQ1IzVEtFWUJZVEVTCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K";
const std::string kCa = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const std::string kCaB64 =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

class Kubeconfig : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("nvcre-kubeconfig-" + std::to_string(rd()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

  // Expects a ConfigError containing `needle` and none of the secrets.
  template <class Fn>
  std::string expect_error(Fn&& fn, const std::string& needle) {
    try {
      fn();
    } catch (const ConfigError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find(kToken), std::string::npos) << what;
      EXPECT_EQ(what.find("S3CR3T"), std::string::npos) << what;
      EXPECT_EQ(what.find(kKeyB64), std::string::npos) << what;
      return what;
    }
    ADD_FAILURE() << "no ConfigError (wanted: " << needle << ")";
    return {};
  }

  fs::path dir_;
};

const char* kFull = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K
    tls-server-name: kubernetes.default
- name: prod-cluster
  cluster:
    server: https://prod.example.com/k8s/clusters/c-1
    certificate-authority: certs/ca.crt
- name: lab
  cluster:
    server: http://127.0.0.1:8080
    insecure-skip-tls-verify: true
users:
- name: dev-user
  user:
    token: sekret-token-4f9a1c
- name: cert-user
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K
    client-key-data: LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClMzQ1IzVEtFWUJZVEVTCi0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K
- name: file-user
  user:
    client-certificate: certs/client.crt
    client-key: /ABSKEY
    tokenFile: certs/token
contexts:
- name: dev
  context: {cluster: dev-cluster, user: dev-user}
- name: prod
  context: {cluster: prod-cluster, user: cert-user, namespace: gpu-validation}
- name: files
  context: {cluster: prod-cluster, user: file-user, namespace: team}
- name: lab
  context: {cluster: lab}
)";

class KubeconfigFull : public Kubeconfig {
 protected:
  void SetUp() override {
    Kubeconfig::SetUp();
    write("certs/ca.crt", kCa);
    write("certs/client.crt", kCa);
    write("certs/token", kToken + "\n");
    auto key = write("keys/client.key", kKey);
    std::string text = kFull;
    text.replace(text.find("/ABSKEY"), 7, key.string());
    path_ = write("config", text);
  }
  fs::path path_;
};

TEST_F(KubeconfigFull, CurrentContextWithTokenAndCaData) {
  auto c = load_kubeconfig(path_);
  EXPECT_EQ(c.server, "https://10.0.0.1:6443");
  EXPECT_EQ(c.ca_data, kCa);
  EXPECT_TRUE(c.ca_file.empty());
  EXPECT_EQ(c.tls_server_name, "kubernetes.default");
  EXPECT_EQ(c.bearer_token, kToken);
  EXPECT_EQ(c.ns, "default");
  EXPECT_FALSE(c.insecure_skip_tls_verify);
  EXPECT_NE(c.source.find("context dev"), std::string::npos);
  auto d = c.describe();
  EXPECT_EQ(d.find(kToken), std::string::npos) << d;
  EXPECT_NE(d.find("token=<redacted>"), std::string::npos) << d;
}

TEST_F(KubeconfigFull, ExplicitContextWithClientCertDataAndCaFile) {
  auto c = load_kubeconfig(path_, "prod");
  EXPECT_EQ(c.server, "https://prod.example.com/k8s/clusters/c-1");
  EXPECT_EQ(c.ca_file, (dir_ / "certs/ca.crt").string());  // relative to the kubeconfig's directory
  EXPECT_EQ(c.client_cert_data, kCa);
  EXPECT_EQ(c.client_key_data, kKey);
  EXPECT_TRUE(c.bearer_token.empty());
  EXPECT_EQ(c.ns, "gpu-validation");
  auto d = c.describe();
  EXPECT_EQ(d.find("S3CR3T"), std::string::npos) << d;
  EXPECT_NE(d.find("clientKey=<redacted>"), std::string::npos) << d;
}

TEST_F(KubeconfigFull, FilesRelativeAndAbsolute) {
  auto c = load_kubeconfig(path_, "files");
  EXPECT_EQ(c.client_cert_file, (dir_ / "certs/client.crt").string());
  EXPECT_EQ(c.client_key_file, (dir_ / "keys/client.key").string());
  EXPECT_EQ(c.token_file, (dir_ / "certs/token").string());
  EXPECT_TRUE(c.bearer_token.empty());  // the client reads the file
  EXPECT_EQ(c.ns, "team");
}

TEST_F(KubeconfigFull, InsecureClusterWithoutUser) {
  auto c = load_kubeconfig(path_, "lab");
  EXPECT_EQ(c.server, "http://127.0.0.1:8080");
  EXPECT_TRUE(c.insecure_skip_tls_verify);
  EXPECT_TRUE(c.bearer_token.empty());
  EXPECT_TRUE(c.client_cert_data.empty());
}

// kubectl's --cluster / --user: the named entry replaces the context's choice, the rest of the
// context (its namespace) stays.
TEST_F(KubeconfigFull, ClusterAndUserReplaceTheContextsChoice) {
  auto c = load_kubeconfig(path_, "prod", "lab", "dev-user");
  EXPECT_EQ(c.server, "http://127.0.0.1:8080");
  EXPECT_TRUE(c.insecure_skip_tls_verify);
  EXPECT_EQ(c.bearer_token, kToken);
  EXPECT_TRUE(c.client_key_data.empty());
  EXPECT_EQ(c.ns, "gpu-validation");
  expect_error(
      [&] { load_kubeconfig(path_, "", "nosuch"); },
      "--cluster: cluster \"nosuch\" not found; available: dev-cluster, prod-cluster, lab");
  expect_error([&] { load_kubeconfig(path_, "", "", "nobody"); },
               "--user: user \"nobody\" not found");
}

TEST_F(KubeconfigFull, UnknownContextListsAvailable) {
  auto what = expect_error([&] { load_kubeconfig(path_, "foo"); },
                           "kubeconfig " + path_.string() +
                               ": context \"foo\" not found; available: dev, prod, files, lab");
  (void)what;
}

TEST_F(Kubeconfig, MissingPiecesAreNamed) {
  const std::string head = "apiVersion: v1\nkind: Config\n";
  expect_error([&] { load_kubeconfig(dir_ / "nope"); },
               "kubeconfig " + (dir_ / "nope").string() + ": cannot read the file");
  expect_error([&] { parse_kubeconfig(head, "/x"); }, "kubeconfig /x: no current-context is set");
  expect_error([&] { parse_kubeconfig(head + "current-context: a\n", "/x"); },
               "kubeconfig /x: context \"a\" not found; available: (none)");
  expect_error(
      [&] {
        parse_kubeconfig(head + "current-context: a\ncontexts:\n- name: a\n  context: {user: u}\n",
                         "/x");
      },
      "context \"a\" names no cluster");
  expect_error(
      [&] {
        parse_kubeconfig(head +
                             "current-context: a\ncontexts:\n- name: a\n  context: {cluster: "
                             "c}\nclusters:\n- name: b\n  cluster: {server: https://x}\n",
                         "/x");
      },
      "context \"a\": cluster \"c\" not found; available: b");
  const std::string ctx =
      head + "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n";
  expect_error([&] { parse_kubeconfig(ctx + "clusters:\n- name: c\n  cluster: {}\n", "/x"); },
               "cluster \"c\" has no server");
  expect_error(
      [&] {
        parse_kubeconfig(ctx + "clusters:\n- name: c\n  cluster: {server: x.example.com}\n", "/x");
      },
      "must start with https:// or http://");
  const std::string cl = ctx + "clusters:\n- name: c\n  cluster: {server: 'https://x'}\n";
  expect_error(
      [&] { parse_kubeconfig(cl + "users:\n- name: v\n  user: {token: " + kToken + "}\n", "/x"); },
      "context \"a\": user \"u\" not found; available: v");
  expect_error(
      [&] {
        parse_kubeconfig(cl + "users:\n- name: u\n  user: {client-key-data: " + kKeyB64 + "}\n",
                         "/x");
      },
      "user \"u\" has a client key but no client-certificate(-data)");
  expect_error(
      [&] {
        parse_kubeconfig(
            cl + "users:\n- name: u\n  user: {client-certificate-data: " + kCaB64 + "}\n", "/x");
      },
      "has a client certificate but no client-key(-data)");
  expect_error(
      [&] {
        parse_kubeconfig(cl + "users:\n- name: u\n  user: {client-certificate-data: " + kCaB64 +
                             ", client-key-data: 'S3CR3T!!'}\n",
                         "/x");
      },
      "\"client-key-data\" is not valid base64");
  expect_error(
      [&] {
        parse_kubeconfig(cl + "users:\n- name: u\n  user: {tokenFile: /does/not/exist}\n", "/x");
      },
      "tokenFile file /does/not/exist does not exist");
  expect_error(
      [&] { parse_kubeconfig(cl + "users:\n- name: u\n  user: {exec: {command: aws}}\n", "/x"); },
      "authenticates with \"exec\"");
  expect_error(
      [&] {
        parse_kubeconfig(cl + "users:\n- name: u\n  user: {token: [" + kToken + "]}\n", "/x");
      },
      "\"token\" must be a string");
  expect_error(
      [&] {
        parse_kubeconfig(ctx +
                             "clusters:\n- name: c\n  cluster: {server: 'https://x', "
                             "insecure-skip-tls-verify: true, "
                             "certificate-authority-data: " +
                             kCaB64 + "}\n",
                         "/x");
      },
      "mutually exclusive");
  expect_error([&] { parse_kubeconfig("token: " + kToken + "\n  - : [\n", "/x"); },
               "kubeconfig /x: not valid YAML");
}

TEST(Base64, DecodesWithAndWithoutPadding) {
  EXPECT_EQ(decode_base64("aGVsbG8="), "hello");
  EXPECT_EQ(decode_base64("aGVsbG8"), "hello");
  EXPECT_EQ(decode_base64("aGVs\nbG8h"),
            "hell"
            "o!");
  EXPECT_EQ(decode_base64(""), "");
  EXPECT_FALSE(decode_base64("a"));
  EXPECT_FALSE(decode_base64("aGV*"));
  EXPECT_FALSE(decode_base64("aG=Vs"));
}

TEST(DefaultKubeconfigPath, KubeconfigEnvThenHome) {
  std::map<std::string, std::string> env{{"KUBECONFIG", "/a/one:/b/two"}, {"HOME", "/home/u"}};
  auto get = [&](const char* n) -> std::optional<std::string> {
    auto it = env.find(n);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(default_kubeconfig_path(get), fs::path("/a/one"));
  env.erase("KUBECONFIG");
  EXPECT_EQ(default_kubeconfig_path(get), fs::path("/home/u/.kube/config"));
  env.clear();
  EXPECT_FALSE(default_kubeconfig_path(get));
}

class InCluster : public Kubeconfig {
 protected:
  InClusterOptions options(std::map<std::string, std::string> env) {
    InClusterOptions o;
    o.token_file = dir_ / "sa/token";
    o.ca_file = dir_ / "sa/ca.crt";
    o.namespace_file = dir_ / "sa/namespace";
    o.getenv = [env](const char* n) -> std::optional<std::string> {
      auto it = env.find(n);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    return o;
  }
  const std::map<std::string, std::string> env_{{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                                {"KUBERNETES_SERVICE_PORT", "443"}};
};

TEST_F(InCluster, AllPresent) {
  write("sa/token", kToken + "\n");
  write("sa/ca.crt", kCa);
  write("sa/namespace", "nvcre-system\n");
  auto c = load_in_cluster(options(env_));
  EXPECT_EQ(c.server, "https://10.96.0.1:443");
  EXPECT_EQ(c.bearer_token, kToken);
  EXPECT_EQ(c.token_file, (dir_ / "sa/token").string());
  EXPECT_EQ(c.ca_file, (dir_ / "sa/ca.crt").string());
  EXPECT_EQ(c.ns, "nvcre-system");
  EXPECT_EQ(c.source, "in-cluster");
  EXPECT_EQ(c.describe().find(kToken), std::string::npos);
}

TEST_F(InCluster, Ipv6HostAndNoNamespaceFile) {
  write("sa/token", kToken);
  write("sa/ca.crt", kCa);
  auto c = load_in_cluster(
      options({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}}));
  EXPECT_EQ(c.server, "https://[fd00::1]:6443");
  EXPECT_EQ(c.ns, "default");
}

TEST_F(InCluster, MissingPiecesAreNamed) {
  expect_error([&] { load_in_cluster(options({})); },
               "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set");
  expect_error(
      [&] {
        load_in_cluster(options({{"KUBERNETES_SERVICE_HOST", "h"}}));
      },
      "environment variable KUBERNETES_SERVICE_PORT not set");
  expect_error([&] { load_in_cluster(options(env_)); },
               "service-account token file " + (dir_ / "sa/token").string() + " does not exist");
  write("sa/token", "  \n");
  expect_error([&] { load_in_cluster(options(env_)); }, "is empty or unreadable");
  write("sa/token", kToken);
  expect_error([&] { load_in_cluster(options(env_)); },
               "CA file " + (dir_ / "sa/ca.crt").string() + " does not exist");
}

}  // namespace
}  // namespace nvcre::k8s
