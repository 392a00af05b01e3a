#include "k8s/connection.hpp"

#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace nvcre::k8s {
namespace fs = std::filesystem;
namespace {

using Getenv = std::function<std::optional<std::string>(const char*)>;

std::optional<std::string> env_or_none(const Getenv& getenv, const char* name) {
  if (getenv) return getenv(name);
  if (const char* value = std::getenv(name)) return std::string(value);
  return std::nullopt;
}

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The first existing entry of $KUBECONFIG (kubectl merges them; nvcre reads the first that
// exists), else nullopt.
std::optional<fs::path> kubeconfig_from_env(const Getenv& getenv) {
  auto list = env_or_none(getenv, "KUBECONFIG");
  if (!list || list->empty()) return std::nullopt;
  std::string_view rest = *list;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string entry(rest.substr(0, colon));
    if (!entry.empty() && is_file(entry)) return fs::path(entry);
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

std::optional<fs::path> kubeconfig_in_home(const Getenv& getenv) {
  auto home = env_or_none(getenv, "HOME");
  if (!home || home->empty()) return std::nullopt;
  fs::path path = fs::path(*home) / ".kube" / "config";
  return is_file(path) ? std::optional<fs::path>(path) : std::nullopt;
}

bool in_cluster_available(const Getenv& getenv) {
  auto host = env_or_none(getenv, "KUBERNETES_SERVICE_HOST");
  return host && !host->empty();
}

// The base config before the flags are applied: a kubeconfig, the in-cluster mount, or (with
// --server) nothing but the flags.
ClientConfig base_config(const ConnectionOverrides& overrides, ConfigSearch search,
                         const ConnectionEnvironment& environment) {
  const Getenv& getenv = environment.getenv;
  InClusterOptions in_cluster = environment.in_cluster;
  if (!in_cluster.getenv) in_cluster.getenv = getenv;
  if (!overrides.kubeconfig.empty()) {
    if (!is_file(overrides.kubeconfig))
      throw ConfigError("--kubeconfig " + overrides.kubeconfig +
                        ": the file does not exist; pass the path of a kubeconfig file");
    return load_kubeconfig(overrides.kubeconfig, overrides.context, overrides.cluster,
                           overrides.user);
  }
  if (auto path = kubeconfig_from_env(getenv))
    return load_kubeconfig(*path, overrides.context, overrides.cluster, overrides.user);
  if (search == ConfigSearch::Controller && in_cluster_available(getenv))
    return load_in_cluster(in_cluster);
  if (auto path = kubeconfig_in_home(getenv))
    return load_kubeconfig(*path, overrides.context, overrides.cluster, overrides.user);
  if (in_cluster_available(getenv)) return load_in_cluster(in_cluster);
  if (!overrides.context.empty())
    throw ConfigError("--context " + overrides.context +
                      ": no kubeconfig found to take it from ($KUBECONFIG is unset or names no "
                      "file, ~/.kube/config does not exist); pass --kubeconfig FILE");
  if (!overrides.server.empty()) {
    ClientConfig config;
    config.source = "flags (--server)";
    return config;
  }
  throw ConfigError(
      "no cluster to connect to: no kubeconfig ($KUBECONFIG is unset or names no file, "
      "~/.kube/config does not exist) and not running in a pod; pass --kubeconfig FILE, set "
      "KUBECONFIG, or pass --server URL (with --token)");
}

void require_file(const std::string& flag, const std::string& path) {
  if (!is_file(path))
    throw ConfigError(flag + " " + path + ": the file does not exist; pass an existing PEM file");
}

}  // namespace

ClientConfig resolve_connection(const ConnectionOverrides& overrides, ConfigSearch search,
                                const ConnectionEnvironment& environment) {
  ClientConfig config = base_config(overrides, search, environment);
  if (!overrides.server.empty()) {
    if (overrides.server.rfind("https://", 0) != 0 && overrides.server.rfind("http://", 0) != 0)
      throw ConfigError("--server \"" + overrides.server +
                        "\": must start with https:// or http:// (e.g. https://10.0.0.1:6443)");
    config.server = overrides.server;
  }
  if (!overrides.token.empty()) {
    config.bearer_token = overrides.token;
    config.token_file.clear();  // an explicit token wins over a rotating file, as in kubectl
  }
  if (!overrides.certificate_authority.empty()) {
    require_file("--certificate-authority", overrides.certificate_authority);
    config.ca_file = overrides.certificate_authority;
    config.ca_data.clear();
  }
  if (!overrides.client_certificate.empty()) {
    require_file("--client-certificate", overrides.client_certificate);
    config.client_cert_file = overrides.client_certificate;
    config.client_cert_data.clear();
  }
  if (!overrides.client_key.empty()) {
    require_file("--client-key", overrides.client_key);
    config.client_key_file = overrides.client_key;
    config.client_key_data.clear();
  }
  const bool has_cert = !config.client_cert_data.empty() || !config.client_cert_file.empty();
  const bool has_key = !config.client_key_data.empty() || !config.client_key_file.empty();
  if (has_cert != has_key)
    throw ConfigError(std::string(has_cert ? "a client certificate without a client key"
                                           : "a client key without a client certificate") +
                      " (" + config.source + "); pass both --client-certificate and --client-key");
  if (!overrides.tls_server_name.empty()) config.tls_server_name = overrides.tls_server_name;
  if (overrides.insecure_skip_tls_verify) {
    if (!overrides.certificate_authority.empty())
      throw ConfigError(
          "--insecure-skip-tls-verify and --certificate-authority are mutually exclusive");
    // As client-go does: the flag drops the kubeconfig's CA instead of failing on the pair.
    config.insecure_skip_tls_verify = true;
    config.ca_data.clear();
    config.ca_file.clear();
  }
  if (!overrides.ns.empty()) config.ns = overrides.ns;
  if (overrides.as.empty() && (!overrides.as_groups.empty() || !overrides.as_uid.empty()))
    throw ConfigError(
        "--as-group and --as-uid impersonate only together with --as USER: add --as with the "
        "user to act as, or drop them");
  config.impersonate_user = overrides.as;
  config.impersonate_groups = overrides.as_groups;
  config.impersonate_uid = overrides.as_uid;
  return config;
}

}  // namespace nvcre::k8s
