#pragma once
// kubectl's connection flags for nvcrectl's cluster commands (--kubeconfig, --context, --cluster,
// --user, -n/--namespace, -s/--server, --token, TLS files, --as/--as-group/--as-uid,
// --request-timeout; --cache-dir and --disable-compression are accepted) and the client they
// select.
// The resolution itself is k8s::resolve_connection, shared with nvcre-manager.
#include "k8s/connection.hpp"
#include "k8s/rest_client.hpp"

#include <initializer_list>
#include <memory>
#include <string>

namespace CLI {
class App;
}

namespace nvcre::cli {

// One string option of a table registered in order: its names ("-s,--server"), where the value
// goes, and the help line.
struct StringOption {
  std::string names;
  std::string* value;
  std::string help;
};
void add_string_options(CLI::App& command, std::initializer_list<StringOption> options);

struct ConnectionFlags {
  k8s::ConnectionOverrides overrides;
  std::string request_timeout = "0";  // Go duration; "0": the client's default (30s)
  std::string cache_dir;              // accepted, unused (kubectl compatibility)
  bool disable_compression = false;   // accepted, unused (kubectl compatibility)
};

// Registers the flags on `command`. `namespace_help` says what -n defaults to for this command;
// "" registers no -n/--namespace (cluster-scoped commands such as cluster info and setup).
void add_connection_flags(CLI::App& command, ConnectionFlags& flags,
                          const std::string& namespace_help);

// The REST client the flags select (kubectl's search order). Throws k8s::ConfigError naming the
// file / context / server and what to do, or std::invalid_argument for a bad --request-timeout.
std::unique_ptr<k8s::RestClient> connect(const ConnectionFlags& flags);

// A message for a failed call to the API server: which server (and which kubeconfig/context the
// address came from), what went wrong, what to check. Never includes credentials.
std::string describe_connection_failure(const k8s::ClientConfig& config, const std::string& what);

}  // namespace nvcre::cli
