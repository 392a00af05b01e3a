#include "manager/flags.hpp"
#include "manager/reconcile_fault.hpp"

#include "k8s/duration.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <variant>

namespace nvcre::manager {

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& error) {
    std::cerr << "Error: " << error.what() << "\n";
    return 1;
  }
  return -1;
}

int parse_manager_flags(int argc, char** argv, ManagerFlags& flags) {
  CLI::App app{"nvcre-manager: reconciles Certifications, WorkloadRuns, Workflows and Jobs",
               "nvcre-manager"};
  app.add_option("--kubeconfig", flags.kubeconfig,
                 "Path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", flags.context,
                 "kubeconfig context to use (default: current-context)");
  app.add_option("--namespace", flags.watch_namespace,
                 "Watch only this namespace (default: all namespaces)");
  app.add_flag("--leader-elect", flags.leader_elect,
               "Elect a leader on a Lease so only one manager writes");
  app.add_option("--leader-election-namespace", flags.leader_election_namespace,
                 "Namespace of the Lease");
  app.add_option("--leader-election-id", flags.leader_election_id, "Name of the Lease")
      ->capture_default_str();
  app.add_option("--leader-election-lease-duration", flags.leader_election_lease_duration,
                 "How long a standby waits after the last renewal it saw before taking the Lease")
      ->capture_default_str();
  app.add_option("--leader-election-renew-deadline", flags.leader_election_renew_deadline,
                 "How long the leader keeps trying to renew before it steps down")
      ->capture_default_str();
  app.add_option("--leader-election-retry-period", flags.leader_election_retry_period,
                 "How often candidates try to take or renew the Lease")
      ->capture_default_str();
  app.add_option("--metrics-bind-address", flags.metrics_bind_address,
                 "Address of the /metrics listener: :8443 for HTTPS, :8080 for HTTP with "
                 "--metrics-secure=false (\"0\" disables it)")
      ->capture_default_str();
  app.add_flag("--metrics-secure", flags.metrics_secure,
               "Serve /metrics over HTTPS and let a scrape through only when its bearer token "
               "passes a TokenReview and a SubjectAccessReview for get /metrics (default true; "
               "--metrics-secure=false serves plain HTTP to anyone)");
  app.add_option("--metrics-cert-path", flags.metrics_cert_path,
                 "Directory holding the metrics server's certificate and key (default: a "
                 "self-signed certificate made at start)");
  app.add_option("--metrics-cert-name", flags.metrics_cert_name,
                 "Certificate file in --metrics-cert-path")
      ->capture_default_str();
  app.add_option("--metrics-cert-key", flags.metrics_cert_key, "Key file in --metrics-cert-path")
      ->capture_default_str();
  app.add_flag("--enable-http2", flags.enable_http2,
               "Accepted for compatibility; the metrics and probe servers speak HTTP/1.1 only "
               "(HTTP/2 stays off, as the rapid-reset attacks advise)");
  app.add_option("--health-probe-bind-address", flags.health_probe_bind_address,
                 "Address of /healthz and /readyz")
      ->capture_default_str();
  app.add_option("--max-concurrent-reconciles", flags.max_concurrent_reconciles,
                 "Reconciles running at once per controller")
      ->capture_default_str();
  app.add_option("--measurement-max-concurrent-reconciles",
                 flags.measurement_max_concurrent_reconciles,
                 "Reconciles running at once per measurement controller (Goodput, Bandwidth)")
      ->capture_default_str();
  app.add_option("--worker-threads", flags.worker_threads,
                 "Threads running reconciles and the actors' messages (0: one per CPU the process "
                 "may use, by its affinity and its cgroup CPU quota)")
      ->capture_default_str();
  app.add_option("--qps", flags.qps,
                 "Client-side API request rate per second (negative: no client-side limit)")
      ->capture_default_str();
  app.add_option("--burst", flags.burst, "Client-side API request burst")->capture_default_str();
  app.add_option("--log-format", flags.log_format, "Log format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--log-level", flags.log_level, "Log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}))
      ->capture_default_str();
  app.add_option(
         "--fault-kill-actor", flags.fault_kill_actor,
         "Fault injection: kill this top-level actor (e.g. store, controller/certification, "
         "reflector/v1/Node) to rehearse a crash; the manager then fails /readyz and exits 1")
      ->group("Fault injection");
  app.add_option(
         "--fault-kill-after", flags.fault_kill_after,
         "Fault injection: how long after the start --fault-kill-actor strikes (Go duration)")
      ->group("Fault injection")
      ->capture_default_str();
  app.add_option("--fault-reconcile-throw", flags.fault_reconcile_throw,
                 "Fault injection: the reconcile of this object (Kind/namespace/name, e.g. "
                 "Certification/team/cert-1; repeatable) throws on every attempt, as a poisoned "
                 "spec would; it is reported on the object and retried with backoff")
      ->group("Fault injection");
  app.footer(
      "Examples:\n"
      "  nvcre-manager --kubeconfig ~/.kube/config\n"
      "  nvcre-manager --leader-elect --metrics-bind-address :8443 --max-concurrent-reconciles 20\n"
      "  nvcre-manager --metrics-bind-address 127.0.0.1:8080 --metrics-secure=false");
  return parse_command_line(app, argc, argv);
}

std::string validate_manager_flags(const ManagerFlags& flags) {
  if (flags.max_concurrent_reconciles <= 0) {
    return "--max-concurrent-reconciles must be greater than 0, got " +
           std::to_string(flags.max_concurrent_reconciles);
  }
  if (flags.measurement_max_concurrent_reconciles <= 0) {
    return "--measurement-max-concurrent-reconciles must be greater than 0, got " +
           std::to_string(flags.measurement_max_concurrent_reconciles);
  }
  if (flags.worker_threads < 0) {
    return "--worker-threads must be 0 (one per usable CPU) or more, got " +
           std::to_string(flags.worker_threads);
  }
  if (flags.burst <= 0 && flags.qps > 0)
    return "--burst must be greater than 0 when --qps is set, got " + std::to_string(flags.burst);
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string&>{"--leader-election-lease-duration",
                                                   flags.leader_election_lease_duration},
        {"--leader-election-renew-deadline", flags.leader_election_renew_deadline},
        {"--leader-election-retry-period", flags.leader_election_retry_period}}) {
    if (auto d = k8s::parse_go_duration(value); !d || d->count() <= 0)
      return std::string(flag) + " must be a positive duration such as 15s, got \"" + value + "\"";
  }
  if (auto after = k8s::parse_go_duration(flags.fault_kill_after); !after || after->count() < 0) {
    return "--fault-kill-after must be a duration such as 500ms or 2s, got \"" +
           flags.fault_kill_after + "\"";
  }
  for (const auto& target : flags.fault_reconcile_throw) {
    const auto parsed = parse_reconcile_fault(target);
    if (const auto* problem = std::get_if<std::string>(&parsed)) return *problem;
  }
  return {};
}

}  // namespace nvcre::manager
