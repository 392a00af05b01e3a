// nvcre-manager: reconciles Certifications, WorkloadRuns, Workflows and Jobs against a cluster
// (kubeconfig or in-cluster). Graceful shutdown on SIGTERM/SIGINT: stop the controllers, release
// the lease, exit 0. A lost lease exits non-zero, as controller-runtime does, and so does the
// death of any top-level actor (/readyz fails at once; a clean stop, then exit 1, so Kubernetes
// restarts the pod instead of leaving a manager that no longer reconciles).
#include "actors/controllers.hpp"
#include "actors/manager.hpp"
#include "k8s/duration.hpp"
#include "k8s/leader_election.hpp"
#include "k8s/connection.hpp"
#include "manager/cpu_budget.hpp"
#include "manager/flags.hpp"
#include "manager/reconcile_fault.hpp"
#include "k8s/metrics.hpp"
#include "k8s/rest_client.hpp"
#include "manager/metrics_server.hpp"
#include "manager/probe_server.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <random>
#include <thread>
#include <variant>

// jemalloc (linked into this binary) reads this before main. The manager's work is many small,
// short-lived JSON nodes made on a dozen threads; under glibc malloc a quarter of its CPU went to
// malloc/free and their arena locks (perf, nvcre_manager_bench --phase latency --lockstep). Two
// arenas and a background thread that returns pages freed for a second keep the RSS growth with
// 1,000 Certifications in flight within the issue's 1.5x of the cached JSON. MALLOC_CONF still
// overrides each setting.
extern "C" {
const char* malloc_conf = "narenas:2,background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}

namespace {

volatile std::sig_atomic_t g_signal = 0;
std::atomic<bool> g_lost_lease{false};
std::atomic<bool> g_actor_down{false};

nvcre::k8s::ClientConfig load_client_config(const nvcre::manager::ManagerFlags& flags) {
  nvcre::k8s::ConnectionOverrides overrides;
  overrides.kubeconfig = flags.kubeconfig;
  overrides.context = flags.context;
  return nvcre::k8s::resolve_connection(overrides, nvcre::k8s::ConfigSearch::Controller);
}

void configure_logging(const nvcre::manager::ManagerFlags& flags) {
  auto logger = spdlog::stderr_logger_mt("nvcre");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(flags.log_level));
  if (flags.log_format == "json") {
    spdlog::set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l","msg":"%v"})",
                        spdlog::pattern_time_type::utc);
  }
}

std::string identity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device random;
  return std::string(host) + "_" + std::to_string(random() % 100000);
}

// "" when `name` is empty or a top-level actor of the manager, else why --fault-kill-actor is
// wrong.
std::string fault_target_problem(const nvcre::actors::Manager& manager, const std::string& name) {
  if (name.empty()) return {};
  std::string known;
  for (const auto& actor : manager.actor_names()) {
    if (actor == name) return {};
    known += (known.empty() ? "" : ", ") + actor;
  }
  return "--fault-kill-actor: no top-level actor named \"" + name + "\" (known: " + known + ")";
}

// Wraps the reconcile of each --fault-reconcile-throw target's kind; "" or why a target names no
// controller's kind.
std::string inject_reconcile_faults(std::vector<nvcre::actors::ControllerSpec>& controllers,
                                    const std::vector<std::string>& targets) {
  for (const auto& text : targets) {
    auto target = std::get<nvcre::manager::ReconcileFaultTarget>(
        nvcre::manager::parse_reconcile_fault(text));  // validated with the other flags
    auto controller = std::find_if(controllers.begin(), controllers.end(),
                                   [&](const auto& spec) { return spec.kind == target.kind; });
    if (controller == controllers.end()) {
      std::string known;
      for (const auto& spec : controllers) known += (known.empty() ? "" : ", ") + spec.kind;
      return "--fault-reconcile-throw: no controller reconciles kind \"" + target.kind +
             "\" (known: " + known + ")";
    }
    spdlog::warn("fault injection: the reconcile of {} throws on every attempt", text);
    controller->reconcile =
        nvcre::manager::throwing_for(std::move(controller->reconcile), std::move(target));
  }
  return {};
}

// The metrics endpoint --metrics-bind-address asks for (nullptr for "0"). Secure, each scrape's
// TokenReview and SubjectAccessReview go to the API server with the manager's own credentials
// (its ServiceAccount holds nvcre-metrics-auth-role for this).
std::unique_ptr<nvcre::manager::MetricsServer> metrics_server(
    const nvcre::manager::ManagerFlags& flags, const nvcre::k8s::ClientConfig& client,
    std::shared_ptr<nvcre::k8s::Metrics> metrics) {
  if (flags.metrics_bind_address == "0") return nullptr;
  nvcre::manager::MetricsServerOptions options{flags.metrics_bind_address, flags.metrics_secure,
                                               flags.metrics_cert_path, flags.metrics_cert_name,
                                               flags.metrics_cert_key};
  std::function<nvcre::manager::ScrapeVerdict(const nvcre::manager::ScrapeRequest&)> authorize;
  if (flags.metrics_secure) {
    nvcre::k8s::RestClientOptions rest;
    rest.user_agent = "nvcre-manager/metrics-auth";
    rest.timeout = std::chrono::seconds(10);
    rest.max_retries = 1;
    auto reviews = std::make_shared<nvcre::k8s::RestClient>(client, rest);
    authorize = [reviews](const nvcre::manager::ScrapeRequest& request) {
      return nvcre::manager::authorize_scrape(
          request, [&](nvcre::manager::Review review, const boost::json::value& body) {
            static const nvcre::k8s::ResourceRef kTokenReviews{"authentication.k8s.io", "v1",
                                                               "tokenreviews", false};
            static const nvcre::k8s::ResourceRef kAccessReviews{"authorization.k8s.io", "v1",
                                                                "subjectaccessreviews", false};
            return reviews->create(
                review == nvcre::manager::Review::Token ? kTokenReviews : kAccessReviews, "", body);
          });
    };
  }
  if (flags.enable_http2) spdlog::info("--enable-http2: the metrics server speaks HTTP/1.1 only");
  auto server = std::make_unique<nvcre::manager::MetricsServer>(options, std::move(metrics),
                                                                std::move(authorize));
  server->start();
  spdlog::info("metrics on port {} ({})", server->port(),
               flags.metrics_secure ? "HTTPS, TokenReview + SubjectAccessReview" : "plain HTTP");
  return server;
}

}  // namespace

int main(int argc, char** argv) {
  nvcre::manager::ManagerFlags flags;
  if (int code = nvcre::manager::parse_manager_flags(argc, argv, flags); code >= 0) return code;
  if (auto problem = nvcre::manager::validate_manager_flags(flags); !problem.empty()) {
    std::cerr << "Error: " << problem << "\n";
    return 1;
  }
  configure_logging(flags);
  try {
    auto client = load_client_config(flags);
    client.rate_limit.qps = flags.qps;
    client.rate_limit.burst = flags.burst;
    spdlog::info("connecting to {}", client.describe());
    auto metrics = std::make_shared<nvcre::k8s::Metrics>();

    nvcre::actors::ManagerOptions options;
    options.client = client;
    options.watch_namespace = flags.watch_namespace;
    options.max_concurrent_reconciles = flags.max_concurrent_reconciles;
    options.measurement_max_concurrent_reconciles = flags.measurement_max_concurrent_reconciles;
    options.scheduler_threads = flags.worker_threads > 0
                                    ? static_cast<std::size_t>(flags.worker_threads)
                                    : nvcre::manager::detect_usable_cpus();
    spdlog::info("{} worker threads", options.scheduler_threads);
    options.watches = nvcre::actors::nvcre_watches();
    options.controllers = nvcre::actors::nvcre_controllers();
    if (auto problem = inject_reconcile_faults(options.controllers, flags.fault_reconcile_throw);
        !problem.empty()) {
      std::cerr << "Error: " << problem << "\n";
      return 1;
    }
    options.gauge_projections = nvcre::actors::nvcre_gauge_projections();
    options.metrics = metrics;
    options.instance = identity();
    options.leader_elect = flags.leader_elect;
    options.election.identity = options.instance;
    options.election.lease_name = flags.leader_election_id;
    options.election.lease_namespace =
        flags.leader_election_namespace.empty() ? client.ns : flags.leader_election_namespace;
    options.election.lease_duration =
        *nvcre::k8s::parse_go_duration(flags.leader_election_lease_duration);
    options.election.renew_deadline =
        *nvcre::k8s::parse_go_duration(flags.leader_election_renew_deadline);
    options.election.retry_period =
        *nvcre::k8s::parse_go_duration(flags.leader_election_retry_period);
    // Replicas competing for the Lease each name their identity in the User-Agent, so an audit log
    // (or kube-sim's request log) tells which one sent a request and whether it then held the
    // Lease.
    if (flags.leader_elect) {
      options.user_agent = "nvcre/" + options.instance;
      nvcre::k8s::validate(options.election);  // lease duration > renew deadline > retry period
    }
    options.on_leadership_lost = [] { g_lost_lease = true; };
    options.on_actor_down = [](const std::string& name, const std::string& reason) {
      spdlog::error("actor {} exited: {}; stopping the manager (exit 1)", name, reason);
      g_actor_down = true;
    };

    auto metrics_endpoint = metrics_server(flags, client, metrics);
    nvcre::actors::Manager manager(options);
    nvcre::manager::ProbeServer probes(flags.health_probe_bind_address,
                                       [&manager] { return manager.ready(); });
    probes.start();
    spdlog::info("health probes on port {}", probes.port());
    manager.start();
    spdlog::info("nvcre-manager started (leader election {})", flags.leader_elect ? "on" : "off");
    if (auto problem = fault_target_problem(manager, flags.fault_kill_actor); !problem.empty()) {
      std::cerr << "Error: " << problem << "\n";
      manager.stop();
      probes.stop();
      return 1;
    }
    const auto fault_kill_at =
        std::chrono::steady_clock::now() + *nvcre::k8s::parse_go_duration(flags.fault_kill_after);
    bool fault_pending = !flags.fault_kill_actor.empty();
    if (fault_pending)
      spdlog::warn("fault injection: {} will be killed after {}", flags.fault_kill_actor,
                   flags.fault_kill_after);

    std::signal(SIGTERM, [](int s) { g_signal = s; });
    std::signal(SIGINT, [](int s) { g_signal = s; });
    while (g_signal == 0 && !g_lost_lease && !g_actor_down) {
      if (fault_pending && std::chrono::steady_clock::now() >= fault_kill_at) {
        fault_pending = false;
        manager.kill_actor(flags.fault_kill_actor, "fault injection (--fault-kill-actor)");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Read before stop(): releasing the Lease on a signal also reports "stopped leading".
    const bool lost_lease = g_lost_lease;
    const bool actor_down = g_actor_down;
    const auto failure = manager.failure();
    spdlog::info("shutting down ({})", lost_lease ? "leadership lost"
                                       : actor_down
                                           ? "actor failed: " + failure.value_or("unknown actor")
                                           : std::string("signal"));
    manager.stop();
    probes.stop();
    spdlog::info("shutdown complete");
    return lost_lease || actor_down ? 1 : 0;
  } catch (const std::exception& error) {
    std::cerr << "Error: " << error.what() << "\n";
    return 1;
  }
}
