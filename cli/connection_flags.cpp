#include "cli/connection_flags.hpp"

#include "k8s/duration.hpp"

#include <CLI/CLI.hpp>

#include <stdexcept>

namespace nvcre::cli {

void add_string_options(CLI::App& command, std::initializer_list<StringOption> options) {
  for (const auto& option : options) command.add_option(option.names, *option.value, option.help);
}

void add_connection_flags(CLI::App& command, ConnectionFlags& flags,
                          const std::string& namespace_help) {
  auto& o = flags.overrides;
  add_string_options(
      command, {{"--kubeconfig", &o.kubeconfig,
                 "Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, "
                 "then the in-cluster service account)"},
                {"--context", &o.context, "The kubeconfig context to use"},
                {"--cluster", &o.cluster, "The kubeconfig cluster to use instead of the context's"},
                {"--user", &o.user, "The kubeconfig user to use instead of the context's"}});
  // Commands without a namespace concept offer no -n: a silently ignored flag is worse than none.
  if (!namespace_help.empty()) command.add_option("-n,--namespace", o.ns, namespace_help);
  add_string_options(
      command,
      {{"-s,--server", &o.server, "The address of the Kubernetes API server"},
       {"--token", &o.token, "Bearer token for authentication to the API server"},
       {"--certificate-authority", &o.certificate_authority,
        "Path to a CA certificate file for the API server"},
       {"--client-certificate", &o.client_certificate, "Path to a client certificate file for TLS"},
       {"--client-key", &o.client_key, "Path to a client key file for TLS"},
       {"--tls-server-name", &o.tls_server_name,
        "Server name for certificate validation (default: the server's host)"}});
  command.add_flag("--insecure-skip-tls-verify", o.insecure_skip_tls_verify,
                   "Do not verify the server's certificate (insecure)");
  add_string_options(
      command, {{"--as", &o.as, "Username to impersonate for the operation"},
                {"--as-uid", &o.as_uid, "UID to impersonate for the operation (needs --as)"}});
  command.add_option("--as-group", o.as_groups,
                     "Group to impersonate for the operation; repeat for several (needs --as)");
  // Accepted so kubectl-style invocations work unchanged; nvcrectl keeps no discovery cache on
  // disk and never asks the server for compressed responses.
  command.add_option("--cache-dir", flags.cache_dir,
                     "Accepted for kubectl compatibility; nvcrectl keeps no discovery cache");
  command.add_flag("--disable-compression", flags.disable_compression,
                   "Accepted for kubectl compatibility; responses are never compressed");
  command.add_option("--request-timeout", flags.request_timeout,
                     "How long to wait for one API request (Go duration, e.g. 10s; 0: 30s)");
}

std::unique_ptr<k8s::RestClient> connect(const ConnectionFlags& flags) {
  k8s::RestClientOptions options;
  options.user_agent = "nvcrectl";
  const auto timeout = k8s::parse_go_duration(flags.request_timeout);
  if (!timeout || timeout->count() < 0)
    throw std::invalid_argument("--request-timeout \"" + flags.request_timeout +
                                "\": not a duration (e.g. 10s, 1m)");
  if (timeout->count() > 0)
    options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*timeout);
  // A CLI run is short and interactive: give up on 429/5xx sooner than the manager does.
  options.max_retries = 2;
  options.max_retry_wait = std::chrono::seconds(5);
  auto config = k8s::resolve_connection(flags.overrides, k8s::ConfigSearch::Kubectl);
  return std::make_unique<k8s::RestClient>(std::move(config), options);
}

std::string describe_connection_failure(const k8s::ClientConfig& config, const std::string& what) {
  return "cannot reach the API server " + config.server + " (" + config.source + "): " + what +
         "; check that the cluster is up and that --kubeconfig / --context / --server point at it";
}

}  // namespace nvcre::cli
