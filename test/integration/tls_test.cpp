// kube-sim over HTTPS, driven by nvcre::k8s::RestClient and once by the real kubectl. A throwaway
// PKI is made per run with the openssl CLI: a CA, a server certificate for 127.0.0.1 + localhost,
// one for "other.example" only, an unrelated CA, and client certificates signed by each CA.
// Every failure must be a TransportError that says what went wrong and never shows a secret.
#include "k8s/rest_client.hpp"
#include "kubectl_support.hpp"
#include "test_pki.hpp"
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace nvcre::k8s {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using sim::testing::run_shell;

const ResourceRef kNamespaces{"", "v1", "namespaces", false};
using nvcre::testing::base64;
using nvcre::testing::Pki;
const std::string kToken = "tls-token-5c1d7e";

sim::KubeSimTls server_tls(const std::string& leaf = "server") {
  sim::KubeSimTls tls;
  tls.cert_file = Pki::get().path(leaf + ".crt");
  tls.key_file = Pki::get().path(leaf + ".key");
  return tls;
}

class TlsSim : public ::testing::Test {
 protected:
  void TearDown() override {
    if (sim_) sim_->stop();
  }

  void start(sim::KubeSimTls tls, const std::string& token = {}) {
    sim::KubeSimOptions options;
    options.tls = std::move(tls);
    options.token = token;
    sim_ = std::make_unique<sim::KubeSim>(options);
    sim_->start();
  }

  ClientConfig config(const std::string& host = "127.0.0.1") const {
    ClientConfig c;
    c.server = "https://" + host + ":" + std::to_string(sim_->port());
    c.rate_limit.qps = -1;
    return c;
  }

  static void expect_works(const ClientConfig& c) {
    RestClient client(c);
    auto list = client.list(kNamespaces, "");
    EXPECT_EQ(list.at("kind"), "NamespaceList");
  }

  // The TransportError `c` ends in, checked for every secret we know.
  static std::string transport_error(const ClientConfig& c) {
    try {
      RestClient(c).list(kNamespaces, "");
    } catch (const TransportError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find(kToken), std::string::npos) << what;
      for (const char* key : {"client.key", "rogue-client.key", "server.key", "ca.key"})
        EXPECT_EQ(what.find(Pki::get().key_fragment(key)), std::string::npos) << what;
      EXPECT_EQ(what.find("PRIVATE KEY"), std::string::npos) << what;
      return what;
    }
    ADD_FAILURE() << "no TransportError";
    return {};
  }

  static bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  }

  std::unique_ptr<sim::KubeSim> sim_;
};

TEST_F(TlsSim, UrlIsHttps) {
  start(server_tls());
  EXPECT_EQ(sim_->url(), "https://127.0.0.1:" + std::to_string(sim_->port()));
}

TEST_F(TlsSim, RightCaAsFileOrDataSucceeds) {
  start(server_tls());
  auto by_file = config();
  by_file.ca_file = Pki::get().path("ca.crt");
  RestClient client(by_file);
  client.create(kNamespaces, "",
                json::object{{"apiVersion", "v1"},
                             {"kind", "Namespace"},
                             {"metadata", json::object{{"name", "over-tls"}}}});
  EXPECT_EQ(client.get(kNamespaces, "", "over-tls").at("metadata").at("name"), "over-tls");
  EXPECT_EQ(client.connections_opened(), 1u);  // keep-alive works over TLS too
  // A watch streams over TLS: the synthetic ADDED events of existing namespaces.
  std::vector<std::string> added;
  client.watch(kNamespaces, "", WatchOptions{}, [&](const WatchEvent& e) {
    if (e.type == WatchEventType::Added)
      added.emplace_back(e.object.at("metadata").at("name").as_string());
    return added.size() == 2 ? WatchControl::Stop : WatchControl::Continue;
  });
  EXPECT_EQ(added.size(), 2u);

  auto by_data = config();
  by_data.ca_data = Pki::get().pem("ca.crt");
  expect_works(by_data);
}

TEST_F(TlsSim, DnsNameInTheCertificateAndSniWork) {
  start(server_tls());
  auto c = config("localhost");
  c.ca_file = Pki::get().path("ca.crt");
  expect_works(c);
}

TEST_F(TlsSim, WrongCaFailsVerificationNamingTheHost) {
  start(server_tls());
  auto c = config();
  c.ca_file = Pki::get().path("wrong-ca.crt");
  c.bearer_token = kToken;
  auto what = transport_error(c);
  EXPECT_TRUE(contains(what, "https://127.0.0.1:" + std::to_string(sim_->port()))) << what;
  EXPECT_TRUE(
      contains(what, "TLS handshake with 127.0.0.1 failed: certificate verification failed"))
      << what;
  EXPECT_TRUE(contains(what, "not signed by the configured certificate-authority")) << what;
}

TEST_F(TlsSim, HostnameMismatchFails) {
  start(server_tls("other"));  // valid only for other.example
  auto c = config();
  c.ca_data = Pki::get().pem("ca.crt");
  auto what = transport_error(c);
  EXPECT_TRUE(contains(what, "certificate verification failed")) << what;
  EXPECT_TRUE(contains(what, "not valid for 127.0.0.1")) << what;
  c.tls_server_name = "other.example";  // kubeconfig tls-server-name: check that name instead
  expect_works(c);
}

TEST_F(TlsSim, InsecureSkipTlsVerifySucceeds) {
  start(server_tls("other"));
  auto c = config();
  c.insecure_skip_tls_verify = true;
  expect_works(c);
}

TEST_F(TlsSim, ClientCertificateRequired) {
  auto tls = server_tls();
  tls.client_ca_file = Pki::get().path("ca.crt");
  start(tls);
  auto c = config();
  c.ca_file = Pki::get().path("ca.crt");

  auto files = c;
  files.client_cert_file = Pki::get().path("client.crt");
  files.client_key_file = Pki::get().path("client.key");
  expect_works(files);

  auto data = c;
  data.client_cert_data = Pki::get().pem("client.crt");
  data.client_key_data = Pki::get().pem("client.key");
  expect_works(data);

  // TLS 1.3: the client finishes its handshake first and hears the server's alert on its first
  // read.
  auto what = transport_error(c);
  EXPECT_TRUE(contains(what, "https://127.0.0.1:" + std::to_string(sim_->port()))) << what;
  EXPECT_TRUE(contains(what, "the server requires a client certificate")) << what;

  auto rogue = c;  // signed by the unrelated CA
  rogue.client_cert_file = Pki::get().path("rogue-client.crt");
  rogue.client_key_data = Pki::get().pem("rogue-client.key");
  what = transport_error(rogue);
  EXPECT_TRUE(contains(what, "the server rejected the client certificate")) << what;
}

TEST_F(TlsSim, ClientCaAsPemAlsoRequiresACertificate) {
  sim::KubeSimTls tls;
  tls.cert_pem = Pki::get().pem("server.crt");
  tls.key_pem = Pki::get().pem("server.key");
  tls.client_ca_pem = Pki::get().pem("ca.crt");
  start(tls);
  auto c = config();
  c.ca_file = Pki::get().path("ca.crt");
  EXPECT_TRUE(contains(transport_error(c), "the server requires a client certificate"));
  c.client_cert_data = Pki::get().pem("client.crt");
  c.client_key_file = Pki::get().path("client.key");
  expect_works(c);
}

TEST_F(TlsSim, BearerTokenOverTlsNeverInErrors) {
  start(server_tls(), kToken);
  auto c = config();
  c.ca_file = Pki::get().path("ca.crt");
  c.bearer_token = kToken;
  expect_works(c);
  c.bearer_token = "wrong-" + kToken;
  try {
    RestClient(c).list(kNamespaces, "");
    FAIL() << "no ApiError";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, 401);
    EXPECT_FALSE(contains(e.what(), kToken)) << e.what();
  }
  c.bearer_token = kToken;
  c.ca_file = Pki::get().path("wrong-ca.crt");
  transport_error(c);  // checks the token is absent
}

// A kubeconfig with every TLS field as inline data, loaded as kubectl users write it.
TEST_F(TlsSim, KubeconfigWithInlineDataConnects) {
  auto tls = server_tls();
  tls.client_ca_file = Pki::get().path("ca.crt");
  start(tls, kToken);
  const std::string text =
      "apiVersion: v1\nkind: Config\ncurrent-context: sim\nclusters:\n- name: sim\n  cluster:\n"
      "    server: " +
      sim_->url() + "\n    certificate-authority-data: " + base64(Pki::get().pem("ca.crt")) +
      "\nusers:\n- name: u\n  user:\n    token: " + kToken +
      "\n    client-certificate-data: " + base64(Pki::get().pem("client.crt")) +
      "\n    client-key-data: " + base64(Pki::get().pem("client.key")) +
      "\ncontexts:\n- name: sim\n  context: {cluster: sim, user: u, namespace: team}\n";
  auto c = parse_kubeconfig(text, "inline");
  c.rate_limit.qps = -1;
  expect_works(c);
  EXPECT_EQ(c.ns, "team");
}

TEST_F(TlsSim, KubeconfigWithFilesConnects) {
  auto tls = server_tls();
  tls.client_ca_file = Pki::get().path("ca.crt");
  start(tls);
  const std::string text =
      "apiVersion: v1\nkind: Config\ncurrent-context: sim\nclusters:\n- name: sim\n  cluster:\n"
      "    server: " +
      sim_->url() +
      "\n    certificate-authority: ca.crt\n"
      "users:\n- name: u\n  user:\n    client-certificate: client.crt\n    client-key: client.key\n"
      "contexts:\n- name: sim\n  context: {cluster: sim, user: u}\n";
  // Relative paths resolve against the kubeconfig's directory.
  auto c = parse_kubeconfig(text, "inline", {}, Pki::get().path(""));
  c.rate_limit.qps = -1;
  expect_works(c);
}

TEST(KubeSimTlsSetup, BadServerMaterialIsAClearErrorWithoutKeyBytes) {
  const std::string garbage =
      "-----BEGIN PRIVATE KEY-----\nS3CR3TKEYBYTES\n-----END PRIVATE KEY-----\n";
  auto start_with = [](sim::KubeSimTls tls) -> std::string {
    sim::KubeSimOptions options;
    options.tls = std::move(tls);
    sim::KubeSim kube(options);
    try {
      kube.start();
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    ADD_FAILURE() << "started";
    return {};
  };
  auto tls = server_tls();
  tls.key_pem = garbage;
  auto what = start_with(tls);
  EXPECT_NE(what.find("server private key PEM is not usable"), std::string::npos) << what;
  EXPECT_EQ(what.find("S3CR3T"), std::string::npos) << what;
  tls = server_tls();
  tls.cert_file = "/no/such/server.crt";
  what = start_with(tls);
  EXPECT_NE(what.find("cannot read server certificate file /no/such/server.crt"), std::string::npos)
      << what;
  tls = server_tls();
  tls.key_file = Pki::get().path("other.key");  // does not match the certificate
  what = start_with(tls);
  EXPECT_NE(what.find("server private key file " + tls.key_file + " is not usable"),
            std::string::npos)
      << what;
  EXPECT_EQ(what.find(Pki::get().key_fragment("other.key")), std::string::npos) << what;
}

}  // namespace
}  // namespace nvcre::k8s

namespace nvcre::sim::testing {
namespace {

// kubectl (client-go) over TLS with certificate-authority-data and a bearer token (which client-go
// sends over https only).
class KubectlOverTls : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override {
    options.tls = k8s::server_tls();
    options.token = k8s::kToken;
  }
  std::string kubeconfig_cluster_fields() const override {
    return "    certificate-authority-data: " + k8s::base64(k8s::Pki::get().pem("ca.crt")) + "\n";
  }
};

TEST_F(KubectlOverTls, GetNamespaces) {
  ASSERT_EQ(sim_->url().rfind("https://", 0), 0u);
  auto result = kubectl("get namespaces");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("default"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace nvcre::sim::testing
