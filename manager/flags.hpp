#pragma once
// nvcre-manager's command line (NVCRE's flags and defaults), parsed
// with CLI11 and validated before anything starts.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace nvcre::manager {

struct ManagerFlags {
  std::string kubeconfig;  // "" -> $KUBECONFIG, then in-cluster, then ~/.kube/config
  std::string context;
  std::string watch_namespace;  // "" = every namespace
  bool leader_elect = false;
  std::string leader_election_namespace;  // "" -> the client's namespace
  std::string leader_election_id = "240fe9c6.nvidia.com";
  // Go durations, controller-runtime's defaults (checked as client-go checks them at start).
  std::string leader_election_lease_duration = "15s";
  std::string leader_election_renew_deadline = "10s";
  std::string leader_election_retry_period = "2s";
  std::string metrics_bind_address = "0";  // "0" disables the metrics listener
  bool metrics_secure = true;     // HTTPS, each scrape authenticated and authorized (metrics_auth)
  std::string metrics_cert_path;  // "" -> a self-signed certificate made at start
  std::string metrics_cert_name = "tls.crt";
  std::string metrics_cert_key = "tls.key";
  bool enable_http2 = false;  // accepted; HTTP/2 is never served
  std::string health_probe_bind_address = ":8081";
  int max_concurrent_reconciles = 10;
  int measurement_max_concurrent_reconciles = 5;
  int worker_threads = 0;  // the scheduler's threads; 0 = one per usable CPU (cpu_budget.hpp)
  // No client-side rate by default: the API server's priority and fairness queues and sheds load
  // (429 + Retry-After, honoured), and the API client never has more than its workers in flight.
  double qps = -1;
  int burst = 30;                   // used only with a positive --qps
  std::string log_format = "text";  // text | json
  std::string log_level = "info";   // trace | debug | info | warn | error
  // Fault injection (chaos tests, operators rehearsing a crash): kill this top-level actor
  // (Manager::actor_names()) once this long (Go duration) after the start.
  std::string fault_kill_actor;  // "" = none
  std::string fault_kill_after = "0s";
  // Kind/namespace/name of objects whose reconcile throws on every attempt (reconcile_fault.hpp).
  std::vector<std::string> fault_reconcile_throw;
};

// CLI11 parse with the project's process contract: --help prints to stdout (0), a bad flag prints
// "Error: ..." to stderr (1); -1 means carry on. Shared by nvcre-manager and nvcre-demo.
int parse_command_line(CLI::App& app, int argc, char** argv);

// Parses argv. Returns the exit code to use when the process should stop now (--help: 0, a bad
// flag: 1 with "Error: ..." on stderr), or -1 to carry on.
int parse_manager_flags(int argc, char** argv, ManagerFlags& flags);

// Semantic checks after parsing; returns "" or the message for "Error: <message>".
std::string validate_manager_flags(const ManagerFlags& flags);

}  // namespace nvcre::manager
