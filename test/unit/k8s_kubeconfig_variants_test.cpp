// kubeconfig variants beyond k8s_kubeconfig_test.cpp: context selection, every credential and CA
// form (file, data, both), insecure-skip-tls-verify spellings, namespace defaults, anonymous users,
// in-cluster edge cases, and errors that name the missing piece without echoing secrets.
#include "k8s/kubeconfig.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace nvcre::k8s {
namespace {

namespace fs = std::filesystem;

const std::string kToken = "variant-token-71be2d";
const std::string kKeyPem =
    "-----BEGIN PRIVATE KEY-----\nVARIANTKEYBYTES\n-----END PRIVATE KEY-----\n";
const std::string kKeyB64 =
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tClZBUklBTlRLRVlCWVRFUwotLS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg"
    "==";
const std::string kCertPem = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const std::string kCertB64 =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

class KubeconfigVariants : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nvcre-kubeconfig-variants-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

  // A kubeconfig with one cluster "c" (fields `cluster`), one user "u" (fields `user`) and a
  // context "ctx" joining them; `extra` is appended at the top level.
  static std::string config(const std::string& cluster, const std::string& user,
                            const std::string& context = "",
                            const std::string& extra = "current-context: ctx\n") {
    return "apiVersion: v1\nkind: Config\n" + extra +
           "clusters:\n- name: c\n  cluster:\n    server: https://10.1.2.3:6443\n" + cluster +
           "users:\n- name: u\n  user:\n" + (user.empty() ? "    {}\n" : user) +
           "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n" + context;
  }

  ClientConfig parse(const std::string& text, const std::string& context = {}) {
    return parse_kubeconfig(text, "/cfg", context, dir_);
  }

  // The ConfigError of `text`; it must contain `needle` and no secret.
  std::string error_of(const std::string& text, const std::string& needle) {
    try {
      parse(text);
    } catch (const ConfigError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find("kubeconfig /cfg: "), 0u) << what;
      EXPECT_EQ(what.find(kToken), std::string::npos) << what;
      EXPECT_EQ(what.find("VARIANTKEY"), std::string::npos) << what;
      EXPECT_EQ(what.find(kKeyB64), std::string::npos) << what;
      return what;
    }
    ADD_FAILURE() << "no ConfigError (wanted: " << needle << ")";
    return {};
  }

  fs::path dir_;
};

TEST_F(KubeconfigVariants, ExplicitContextOverridesCurrentContext) {
  const std::string two =
      "apiVersion: v1\nkind: Config\ncurrent-context: first\n"
      "clusters:\n- name: one\n  cluster: {server: 'https://one:6443'}\n"
      "- name: two\n  cluster: {server: 'https://two:6443'}\n"
      "contexts:\n- name: first\n  context: {cluster: one}\n"
      "- name: second\n  context: {cluster: two, namespace: ns2}\n";
  auto current = parse(two);
  EXPECT_EQ(current.server, "https://one:6443");
  EXPECT_EQ(current.ns, "default");
  EXPECT_NE(current.source.find("(context first)"), std::string::npos);
  auto explicit_ctx = parse(two, "second");
  EXPECT_EQ(explicit_ctx.server, "https://two:6443");
  EXPECT_EQ(explicit_ctx.ns, "ns2");
  EXPECT_NE(explicit_ctx.source.find("(context second)"), std::string::npos);
  // An explicit context works without any current-context.
  auto no_current = parse(
      two.substr(0, two.find("current-context")) + two.substr(two.find("clusters:")), "second");
  EXPECT_EQ(no_current.server, "https://two:6443");
}

TEST_F(KubeconfigVariants, NamespaceDefaultsAndExplicit) {
  EXPECT_EQ(parse(config("", "")).ns, "default");
  EXPECT_EQ(parse(config("", "", "    namespace: gpu-team\n")).ns, "gpu-team");
  EXPECT_EQ(parse(config("", "", "    namespace: ''\n")).ns, "default");
}

TEST_F(KubeconfigVariants, TokenAndTokenFileTogether) {
  write("sa-token", kToken + "\n");
  auto c = parse(config("", "    token: " + kToken + "\n    tokenFile: sa-token\n"));
  EXPECT_EQ(c.bearer_token, kToken);  // the initial value; the client re-reads the file
  EXPECT_EQ(c.token_file, (dir_ / "sa-token").string());
  auto d = c.describe();
  EXPECT_EQ(d.find(kToken), std::string::npos) << d;
  EXPECT_NE(d.find("tokenFile=" + (dir_ / "sa-token").string()), std::string::npos) << d;
}

TEST_F(KubeconfigVariants, ClientCertificateAsFilesAndAsData) {
  write("pki/client.crt", kCertPem);
  write("pki/client.key", kKeyPem);
  auto files =
      parse(config("", "    client-certificate: pki/client.crt\n    client-key: pki/client.key\n"));
  EXPECT_EQ(files.client_cert_file, (dir_ / "pki/client.crt").string());
  EXPECT_EQ(files.client_key_file, (dir_ / "pki/client.key").string());
  EXPECT_TRUE(files.client_cert_data.empty());
  EXPECT_TRUE(files.client_key_data.empty());

  auto data = parse(config(
      "", "    client-certificate-data: " + kCertB64 + "\n    client-key-data: " + kKeyB64 + "\n"));
  EXPECT_EQ(data.client_cert_data, kCertPem);
  EXPECT_EQ(data.client_key_data, kKeyPem);
  EXPECT_TRUE(data.client_cert_file.empty());
  auto d = data.describe();
  EXPECT_EQ(d.find("VARIANTKEY"), std::string::npos) << d;

  // A certificate file with inline key data (and vice versa) is a complete pair.
  auto mixed = parse(
      config("", "    client-certificate: pki/client.crt\n    client-key-data: " + kKeyB64 + "\n"));
  EXPECT_EQ(mixed.client_cert_file, (dir_ / "pki/client.crt").string());
  EXPECT_EQ(mixed.client_key_data, kKeyPem);
}

TEST_F(KubeconfigVariants, CertificateAuthorityFileDataAndBoth) {
  write("ca.crt", kCertPem);
  auto file = parse(config("    certificate-authority: ca.crt\n", ""));
  EXPECT_EQ(file.ca_file, (dir_ / "ca.crt").string());
  EXPECT_TRUE(file.ca_data.empty());
  auto data = parse(config("    certificate-authority-data: " + kCertB64 + "\n", ""));
  EXPECT_EQ(data.ca_data, kCertPem);
  // Both: both are kept; the client uses the data (ClientConfig: data wins).
  auto both = parse(config(
      "    certificate-authority: ca.crt\n    certificate-authority-data: " + kCertB64 + "\n", ""));
  EXPECT_EQ(both.ca_data, kCertPem);
  EXPECT_EQ(both.ca_file, (dir_ / "ca.crt").string());
  auto absolute =
      parse(config("    certificate-authority: " + (dir_ / "ca.crt").string() + "\n", ""));
  EXPECT_EQ(absolute.ca_file, (dir_ / "ca.crt").string());
}

TEST_F(KubeconfigVariants, InsecureSkipTlsVerifySpellingsAndServerName) {
  EXPECT_TRUE(parse(config("    insecure-skip-tls-verify: true\n", "")).insecure_skip_tls_verify);
  EXPECT_TRUE(parse(config("    insecure-skip-tls-verify: 'true'\n", "")).insecure_skip_tls_verify);
  EXPECT_FALSE(parse(config("    insecure-skip-tls-verify: false\n", "")).insecure_skip_tls_verify);
  EXPECT_FALSE(parse(config("", "")).insecure_skip_tls_verify);
  error_of(config("    insecure-skip-tls-verify: maybe\n", ""),
           "cluster \"c\": \"insecure-skip-tls-verify\" must be a boolean");
  EXPECT_EQ(parse(config("    tls-server-name: api.internal\n", "")).tls_server_name,
            "api.internal");
}

TEST_F(KubeconfigVariants, AnonymousUsers) {
  const std::string no_user =
      "apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
      "clusters:\n- name: c\n  cluster: {server: 'http://127.0.0.1:8080'}\n"
      "contexts:\n- name: ctx\n  context: {cluster: c}\n";
  auto c = parse(no_user);
  EXPECT_TRUE(c.bearer_token.empty());
  EXPECT_TRUE(c.token_file.empty());
  // A user entry whose map is null is anonymous too (kubectl writes "user: {}" or nothing).
  auto null_user = parse(no_user +
                             "- name: ctx2\n  context: {cluster: c, user: nobody}\nusers:\n- name: "
                             "nobody\n  user: null\n",
                         "ctx2");
  EXPECT_TRUE(null_user.bearer_token.empty());
  EXPECT_TRUE(null_user.client_cert_data.empty());
  auto c2 = parse(config("", "    token: " + kToken + "\n    exec: {command: ignored}\n"));
  EXPECT_EQ(c2.bearer_token, kToken);  // exec alongside a token: the token is used
}

TEST_F(KubeconfigVariants, MissingFilesAreNamed) {
  error_of(config("    certificate-authority: nope/ca.crt\n", ""),
           "cluster \"c\": certificate-authority file " + (dir_ / "nope/ca.crt").string() +
               " does not exist");
  write("pki/client.key", kKeyPem);
  error_of(config("", "    client-certificate: pki/none.crt\n    client-key: pki/client.key\n"),
           "user \"u\": client-certificate file " + (dir_ / "pki/none.crt").string() +
               " does not exist");
  write("pki/client.crt", kCertPem);
  error_of(config("", "    client-certificate: pki/client.crt\n    client-key: pki/none.key\n"),
           "user \"u\": client-key file " + (dir_ / "pki/none.key").string() + " does not exist");
  error_of(config("", "    tokenFile: nope/token\n"),
           "user \"u\": tokenFile file " + (dir_ / "nope/token").string() + " does not exist");
}

TEST_F(KubeconfigVariants, MalformedPiecesAreNamed) {
  error_of(config("    certificate-authority-data: '%%%'\n", ""),
           "cluster \"c\": \"certificate-authority-data\" is not valid base64");
  error_of(config("", "    client-certificate-data: " + kCertB64 + "\n    client-key-data: '" +
                          kToken + "!'\n"),
           "user \"u\": \"client-key-data\" is not valid base64");
  error_of(config("", "    username: admin\n    password: " + kToken + "\n"), "uses basic auth");
  error_of(config("", "    auth-provider: {name: gcp}\n"), "authenticates with \"auth-provider\"");
  error_of(
      "apiVersion: v1\nkind: Config\ncurrent-context: ctx\ncontexts:\n- name: ctx\n  context: "
      "{cluster: c}\n",
      "context \"ctx\": cluster \"c\" not found; available: (none)");
  error_of("apiVersion: v1\nkind: Config\ncurrent-context: ctx\ncontexts:\n- name: ctx\n",
           "contexts entry \"ctx\" has no \"context\" map");
  error_of(
      "apiVersion: v1\nkind: Config\ncurrent-context: ctx\ncontexts:\n- name: ctx\n  context: "
      "{cluster: c}\n"
      "clusters:\n- name: c\n",
      "clusters entry \"c\" has no \"cluster\" map");
  error_of("- just\n- a list\n", "top level is not a map");
}

TEST(KubeconfigVariantsPath, EmptyKubeconfigVariableFallsBackToHome) {
  std::map<std::string, std::string> env{{"KUBECONFIG", ""}, {"HOME", "/home/u"}};
  auto get = [&](const char* n) -> std::optional<std::string> {
    auto it = env.find(n);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(default_kubeconfig_path(get), fs::path("/home/u/.kube/config"));
}

class InClusterVariants : public KubeconfigVariants {
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
};

TEST_F(InClusterVariants, TrimsTokenAndNamespaceAndRotatesFromTheFile) {
  write("sa/token", "\n  " + kToken + " \n");
  write("sa/ca.crt", kCertPem);
  write("sa/namespace", "  jobs \n");
  auto c = load_in_cluster(options(
      {{"KUBERNETES_SERVICE_HOST", "kubernetes.default.svc"}, {"KUBERNETES_SERVICE_PORT", "443"}}));
  EXPECT_EQ(c.server, "https://kubernetes.default.svc:443");
  EXPECT_EQ(c.bearer_token, kToken);
  EXPECT_EQ(c.token_file, (dir_ / "sa/token").string());  // the client re-reads it (rotation)
  EXPECT_EQ(c.ca_file, (dir_ / "sa/ca.crt").string());
  EXPECT_TRUE(c.ca_data.empty());
  EXPECT_FALSE(c.insecure_skip_tls_verify);
  EXPECT_EQ(c.ns, "jobs");
  write("sa/namespace", " \n");
  EXPECT_EQ(
      load_in_cluster(options({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}}))
          .ns,
      "default");
}

TEST_F(InClusterVariants, EmptyEnvironmentValuesCountAsMissing) {
  try {
    load_in_cluster(options({{"KUBERNETES_SERVICE_HOST", ""}, {"KUBERNETES_SERVICE_PORT", "443"}}));
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "in-cluster config: environment variable KUBERNETES_SERVICE_HOST not set (not "
                 "running in a pod?)");
  }
}

}  // namespace
}  // namespace nvcre::k8s
