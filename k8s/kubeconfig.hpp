#pragma once
// Where and how to reach the API server: ClientConfig, loaded from a kubeconfig file (current
// context or a named one) or from the in-cluster service-account mount. Every ConfigError names the
// source and what is missing; secrets (tokens, keys) never appear in errors: only the names of the
// fields or files that hold them.
#include "k8s/rate_limiter.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nvcre::k8s {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ClientConfig {
  std::string server;  // http(s)://host[:port][/path-prefix]

  // TLS. *_data are PEM bytes (decoded from the kubeconfig's base64); *_file are paths (absolute,
  // resolved against the kubeconfig's directory). Data wins over file when both are set.
  std::string ca_data;
  std::string ca_file;
  std::string client_cert_data;
  std::string client_cert_file;
  std::string client_key_data;  // secret
  std::string client_key_file;
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;  // SNI + certificate name check instead of the URL host

  // Authentication (client-go rules): with token_file set the client re-reads it every minute
  // (service-account tokens rotate) and bearer_token is only the initial/fallback value.
  std::string bearer_token;  // secret
  std::string token_file;

  // Impersonation (kubectl's --as, --as-group, --as-uid): sent as Impersonate-* headers; the
  // server acts as this user if the authenticated one may impersonate it.
  std::string impersonate_user;
  std::vector<std::string> impersonate_groups;
  std::string impersonate_uid;

  std::string ns = "default";         // the context's namespace
  RequestRateLimitConfig rate_limit;  // qps/burst, rest.Config semantics

  std::string source;  // "kubeconfig /path (context ctx)" or "in-cluster"; for messages

  // A one-line description without secrets ("<redacted>" stands in for them).
  std::string describe() const;
};

// Loads `path`. `context` empty: the file's current-context; `cluster` / `user` (kubectl's
// --cluster / --user) replace the context's choice of that entry. Throws ConfigError.
ClientConfig load_kubeconfig(const std::filesystem::path& path, const std::string& context = {},
                             const std::string& cluster = {}, const std::string& user = {});

// The same from text already read; `origin` names the file in messages, relative paths resolve
// against `base_dir`.
ClientConfig parse_kubeconfig(const std::string& text, const std::string& origin,
                              const std::string& context = {},
                              const std::filesystem::path& base_dir = {},
                              const std::string& cluster = {}, const std::string& user = {});

// A kubeconfig of one context "sim" for `server_url`: what the demo hands its user and the tests
// hand nvcrectl, kubectl and the manager. No credentials unless `token` is given (an open kube-sim
// asks for none); `ca_file` names the certificate authority of an https server.
std::string single_context_kubeconfig(const std::string& server_url, const std::string& token = {},
                                      const std::string& ca_file = {});

// The kubeconfig path kubectl would use: $KUBECONFIG (first entry) else ~/.kube/config.
// nullopt when neither is set. `getenv` is injectable for tests.
std::optional<std::filesystem::path> default_kubeconfig_path(
    const std::function<std::optional<std::string>(const char*)>& getenv = {});

struct InClusterOptions {
  std::filesystem::path token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::filesystem::path ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::filesystem::path namespace_file = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
  // Environment lookup; default std::getenv.
  std::function<std::optional<std::string>(const char*)> getenv;
};

// KUBERNETES_SERVICE_HOST / KUBERNETES_SERVICE_PORT + the service-account mount. Throws ConfigError
// naming what is missing (env vars, token file, CA file). A missing namespace file means "default".
ClientConfig load_in_cluster(const InClusterOptions& options = {});

// Decodes standard base64 (padding optional, whitespace ignored); nullopt when malformed.
std::optional<std::string> decode_base64(const std::string& text);

}  // namespace nvcre::k8s
