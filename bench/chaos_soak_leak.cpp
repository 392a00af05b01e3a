// The soak's leak mode: cycles of creating and deleting Certifications against one manager
// process; per cycle its RSS and, from its /metrics, the live reconciler actors and the informer
// cache's objects of the kinds the cycle deleted. RSS is reported (a noisy machine moves it);
// that nothing of the deleted objects stays behind is asserted.
#include "bench/chaos_soak.hpp"
#include "bench/manager_bench_process.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <regex>
#include <thread>

namespace nvcre::soak {
namespace {

using namespace std::chrono_literals;

struct Gauges {
  double reconcilers = 0;
  double cached_deleted = 0;  // cache objects of every kind but Node and LogProfile
  std::string per_kind;
};

// The metrics port the manager logged ("metrics on port N").
int metrics_port(const std::string& log_path) {
  for (auto until = Clock::now() + 30s; Clock::now() < until; std::this_thread::sleep_for(50ms)) {
    std::ifstream in(log_path);
    const std::string log{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::smatch m;
    if (std::regex_search(log, m, std::regex("metrics on port ([0-9]+)"))) return std::stoi(m[1]);
  }
  throw std::runtime_error("the manager never logged its metrics port; see " + log_path);
}

Gauges scrape(int port) {
  k8s::ClientConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(port);
  config.rate_limit.qps = -1;
  k8s::RestClient client(config);
  const std::string text = client.request({"GET", "/metrics", {}, "", ""}).body;
  Gauges g;
  static const std::regex reconcilers(R"(^nvcre_reconciler_actors\{[^}]*\} ([0-9.e+-]+)$)");
  static const std::regex cached(R"(^nvcre_cache_objects\{([^}]*)\} ([0-9.e+-]+)$)");
  static const std::regex kind_label(R"re(kind="([^"]+)")re");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, reconcilers)) g.reconcilers += std::stod(m[1]);
    if (!std::regex_match(line, m, cached)) continue;
    const std::string labels = m[1];
    const double value = std::stod(m[2]);
    std::smatch k;
    const std::string kind = std::regex_search(labels, k, kind_label) ? k[1].str() : "?";
    if (kind == "Node" || kind == "LogProfile" || value == 0) continue;
    g.cached_deleted += value;
    g.per_kind += " " + kind + "=" + std::to_string(static_cast<long>(value));
  }
  return g;
}

void wait_until(const std::function<bool()>& done, std::chrono::seconds timeout,
                const std::string& what) {
  for (auto until = Clock::now() + timeout; !done(); std::this_thread::sleep_for(200ms))
    if (Clock::now() > until) throw std::runtime_error("leak cycle: " + what + " not in time");
}

}  // namespace

int run_leak(const SoakSettings& s) {
  const Layout layout = plan_layout(s.leak_certifications, {Mix::Dcgm});
  manager::EmbeddedClusterOptions options;
  options.profile = "aws:h100:" + std::to_string(layout.node_count);
  options.trainer_step = std::chrono::milliseconds(s.trainer_step_ms);
  options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
  options.namespaces = {kNamespace};
  manager::EmbeddedCluster cluster(options);
  cluster.start();
  k8s::RestClientOptions client_options;
  client_options.user_agent = kSoakAgent;
  k8s::RestClient client(cluster.client_config(), client_options);
  bench::Settings settings;
  settings.manager = s.manager;
  settings.manager_args = {"--metrics-bind-address",
                           "127.0.0.1:0",
                           "--metrics-secure=false",
                           "--qps",
                           "100",
                           "--burst",
                           "200"};
  bench::ManagerProcess manager(settings, cluster.client_config().server, "leak");
  manager.wait_ready(60s);
  const int port = metrics_port(manager.log());

  std::printf(
      "cycle  seconds  rss_mb  hwm_mb  reconciler_actors  cached_objects_of_deleted_kinds\n");
  long first_rss = 0, last_rss = 0;
  for (int cycle = 1; cycle <= s.leak_cycles; ++cycle) {
    const auto started = Clock::now();
    for (const auto& c : layout.certifications)
      create_until_done(client, bench::kCertifications, c.object);
    wait_until(
        [&] {
          return count_verdicts(client.list(bench::kCertifications, kNamespace)) ==
                 layout.certifications.size();
        },
        s.timeout, "every verdict");
    for (const auto& c : layout.certifications)
      delete_until_gone(client, bench::kCertifications, c.name);
    wait_until(
        [&] {
          return client.list(bench::kCertifications, kNamespace).at("items").as_array().empty() &&
                 owned_left(client) == 0;
        },
        s.timeout, "the deletion");
    std::this_thread::sleep_for(2s);  // the last watch events reach the manager
    const auto memory = manager.memory();
    const Gauges g = scrape(port);
    if (cycle == 1) first_rss = memory.rss;
    last_rss = memory.rss;
    std::printf("%5d  %7.1f  %6.1f  %6.1f  %17.0f  %.0f%s\n", cycle,
                std::chrono::duration<double>(Clock::now() - started).count(), memory.rss / 1024.0,
                memory.hwm / 1024.0, g.reconcilers, g.cached_deleted, g.per_kind.c_str());
    std::fflush(stdout);
  }
  // Idle reconcilers are reaped a minute after their last pass (actors/controller.hpp).
  Gauges final_gauges;
  for (auto until = Clock::now() + 90s; Clock::now() < until; std::this_thread::sleep_for(1s)) {
    final_gauges = scrape(port);
    if (final_gauges.reconcilers == 0 && final_gauges.cached_deleted == 0) break;
  }
  std::printf("after the reap: %.0f reconciler actors, %.0f cached objects of deleted kinds%s\n",
              final_gauges.reconcilers, final_gauges.cached_deleted, final_gauges.per_kind.c_str());
  std::printf(
      "RSS last/first cycle: %.3f\n",
      first_rss == 0 ? 0.0 : static_cast<double>(last_rss) / static_cast<double>(first_rss));
  const bool ok = final_gauges.reconcilers == 0 && final_gauges.cached_deleted == 0;
  std::printf("[leak] %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace nvcre::soak
