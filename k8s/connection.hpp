#pragma once
// Which API server to talk to and as whom: kubectl's connection flags resolved against a
// kubeconfig or the in-cluster mount. One implementation for nvcre-manager and nvcrectl, so both
// find the cluster, verify TLS and present tokens the same way. Secrets never appear in messages.
#include "k8s/kubeconfig.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::k8s {

// kubectl's connection flags (genericclioptions.ConfigFlags). Empty / false: not given.
struct ConnectionOverrides {
  std::string kubeconfig;             // --kubeconfig
  std::string context;                // --context
  std::string ns;                     // -n/--namespace
  std::string server;                 // -s/--server
  std::string token;                  // --token (secret)
  std::string certificate_authority;  // --certificate-authority (file)
  std::string client_certificate;     // --client-certificate (file)
  std::string client_key;             // --client-key (file)
  std::string tls_server_name;        // --tls-server-name
  bool insecure_skip_tls_verify = false;
  std::string cluster;                 // --cluster: the kubeconfig cluster instead of the context's
  std::string user;                    // --user: the kubeconfig user instead of the context's
  std::string as;                      // --as: impersonate this user
  std::vector<std::string> as_groups;  // --as-group (repeatable)
  std::string as_uid;                  // --as-uid
};

// Where to look when --kubeconfig is not given. Both start with $KUBECONFIG (its first existing
// entry). kubectl then tries ~/.kube/config and falls back to the in-cluster mount;
// controller-runtime (the manager) prefers the in-cluster mount to a stray ~/.kube/config.
enum class ConfigSearch { Kubectl, Controller };

struct ConnectionEnvironment {
  std::function<std::optional<std::string>(const char*)> getenv;  // default std::getenv
  InClusterOptions in_cluster;
};

// The ClientConfig `overrides` select. Throws ConfigError naming the file, context or server and
// what to do about it: a --kubeconfig that cannot be read, a --context the file lacks, no
// kubeconfig and no in-cluster mount (unless --server is given), a malformed --server, a
// --certificate-authority file that does not exist, or a client certificate without its key.
ClientConfig resolve_connection(const ConnectionOverrides& overrides, ConfigSearch search,
                                const ConnectionEnvironment& environment = {});

}  // namespace nvcre::k8s
