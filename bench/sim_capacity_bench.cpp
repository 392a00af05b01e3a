// kube-sim's raw capacity on this machine, measured from load clients over loopback HTTP (the
// embedded KubeSim: one io_context thread; the clients are nvcre::k8s::RestClient with keep-alive,
// no client-side rate limit). Prints one table:
//   - creates/s and gets/s of ConfigMaps from 1 and 4 client threads (p50/p99 latency per call);
//   - watch events/s delivered to 1, 10 and 100 concurrent watchers, two ways:
//       live:    watchers open from the current resourceVersion while one writer creates E objects
//                as fast as it can; rate = watchers * E / time until every watcher has all E;
//       backlog: E objects already created, watchers open from the resourceVersion before them and
//                replay them; rate = watchers * E / time (the delivery path alone).
// Clients and server share the machine's cores, so these are whole-system figures.
//
// Usage: nvcre_sim_capacity_bench [--quick] [--seconds S] [--events E]
//   --quick: 0.3 s per rate and E = 50 (the ctest pass); default: 3 s and E = 2000.
#include "k8s/rest_client.hpp"
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
using Clock = std::chrono::steady_clock;

const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};
const k8s::ResourceRef kNamespaces{"", "v1", "namespaces", false};

struct Settings {
  double seconds = 3.0;
  int events = 2000;
};

json::value config_map(const std::string& name) {
  return json::object{{"metadata", json::object{{"name", name}}},
                      {"data", json::object{{"payload", std::string(64, 'x')}}}};
}

std::unique_ptr<k8s::RestClient> make_client(const std::string& url) {
  k8s::ClientConfig config;
  config.server = url;
  config.rate_limit.qps = -1;
  k8s::RestClientOptions options;
  options.max_retries = 0;
  options.max_idle_connections = 128;
  return std::make_unique<k8s::RestClient>(config, options);
}

void create_namespace(k8s::RestClient& client, const std::string& name) {
  client.create(kNamespaces, "", json::object{{"metadata", json::object{{"name", name}}}});
}

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct RateResult {
  std::size_t ops = 0;
  std::size_t errors = 0;
  double seconds = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

// Runs `op(thread, i)` from `threads` threads until the time is up; one client per thread.
template <class Op>
RateResult measure_rate(const std::string& url, int threads, double seconds, Op op) {
  std::vector<std::vector<double>> latencies(static_cast<std::size_t>(threads));
  std::atomic<std::size_t> errors{0};
  std::vector<std::unique_ptr<k8s::RestClient>> clients;
  for (int t = 0; t < threads; ++t) clients.push_back(make_client(url));
  const auto start = Clock::now();
  const auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      auto& mine = latencies[static_cast<std::size_t>(t)];
      for (std::size_t i = 0; Clock::now() < end; ++i) {
        const auto before = Clock::now();
        try {
          op(*clients[static_cast<std::size_t>(t)], t, i);
        } catch (const std::exception&) {
          ++errors;
        }
        mine.push_back(ms(Clock::now() - before));
      }
    });
  }
  for (auto& w : workers) w.join();
  RateResult result;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  result.ops = all.size();
  result.errors = errors;
  if (!all.empty()) {
    result.p50_ms = all[all.size() / 2];
    result.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  }
  return result;
}

void print_rate(const char* what, int threads, const RateResult& r) {
  std::printf("%-22s %8d %10zu %8zu %9.2f %12.0f %8.2f %8.2f\n", what, threads, r.ops, r.errors,
              r.seconds, static_cast<double>(r.ops - r.errors) / r.seconds, r.p50_ms, r.p99_ms);
}

std::string list_resource_version(k8s::RestClient& client, const std::string& ns) {
  k8s::ListOptions options;
  options.limit = 1;
  return std::string(
      client.list(kConfigMaps, ns, options).at("metadata").at("resourceVersion").as_string());
}

void create_objects(k8s::RestClient& client, const std::string& ns, int count) {
  for (int i = 0; i < count; ++i)
    client.create(kConfigMaps, ns, config_map("w-" + std::to_string(i)));
}

struct FanOut {
  double seconds = 0;
  std::size_t delivered = 0;
  bool complete = true;
};

// `watchers` threads each watch `ns` from `from_rv` until they saw `events` ADDED events; `during`
// runs on the calling thread meanwhile (the live writer, or nothing).
template <class During>
FanOut fan_out(const std::string& url, const std::string& ns, const std::string& from_rv,
               int watchers, int events, During during) {
  auto client = make_client(url);
  std::atomic<std::size_t> delivered{0};
  std::atomic<int> incomplete{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < watchers; ++w) {
    threads.emplace_back([&] {
      k8s::WatchOptions options;
      options.resource_version = from_rv;
      options.allow_watch_bookmarks = false;
      options.timeout_seconds = 300;
      int seen = 0;
      try {
        client->watch(kConfigMaps, ns, options, [&](const k8s::WatchEvent& event) {
          if (event.type == k8s::WatchEventType::Added) ++seen;
          return seen >= events ? k8s::WatchControl::Stop : k8s::WatchControl::Continue;
        });
      } catch (const std::exception& e) {
        std::fprintf(stderr, "watcher failed: %s\n", e.what());
      }
      if (seen < events) ++incomplete;
      delivered += static_cast<std::size_t>(seen);
    });
  }
  during();
  for (auto& t : threads) t.join();
  return {std::chrono::duration<double>(Clock::now() - start).count(), delivered.load(),
          incomplete == 0};
}

void print_fan_out(const char* mode, int watchers, int events, const FanOut& f) {
  std::printf("%-22s %8d %10d %12zu %9.2f %12.0f%s\n", mode, watchers, events, f.delivered,
              f.seconds, static_cast<double>(f.delivered) / f.seconds,
              f.complete ? "" : "  (INCOMPLETE)");
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      settings.seconds = 0.3;
      settings.events = 50;
    } else if (arg == "--seconds" && i + 1 < argc) {
      settings.seconds = std::atof(argv[++i]);
    } else if (arg == "--events" && i + 1 < argc) {
      settings.events = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--seconds S] [--events E]\n", argv[0]);
      return 2;
    }
  }

  nvcre::sim::KubeSimOptions options;
  options.api.store.retained_events = 1000000;  // backlog replays must not hit 410
  nvcre::sim::KubeSim sim(options);
  sim.start();
  auto admin = make_client(sim.url());
  std::printf(
      "kube-sim capacity, loopback HTTP, %u hardware threads; %.1f s per rate, %d events per "
      "watcher\n\n",
      std::thread::hardware_concurrency(), settings.seconds, settings.events);
  std::printf("%-22s %8s %10s %8s %9s %12s %8s %8s\n", "operation", "clients", "calls", "errors",
              "seconds", "ok calls/s", "p50 ms", "p99 ms");

  for (int threads : {1, 4}) {
    const std::string ns = "create-" + std::to_string(threads);
    create_namespace(*admin, ns);
    auto r = measure_rate(
        sim.url(), threads, settings.seconds, [&](k8s::RestClient& c, int t, std::size_t i) {
          c.create(kConfigMaps, ns,
                   config_map("cm-" + std::to_string(t) + "-" + std::to_string(i)));
        });
    print_rate("create configmap", threads, r);
    // Sanity: every successful create is really stored.
    const auto stored = admin->list(kConfigMaps, ns).at("items").as_array().size();
    if (stored != r.ops - r.errors) std::printf("  WARNING: %zu objects stored\n", stored);
  }
  create_namespace(*admin, "get");
  constexpr int kGetObjects = 100;
  create_objects(*admin, "get", kGetObjects);
  for (int threads : {1, 4}) {
    auto r = measure_rate(
        sim.url(), threads, settings.seconds, [&](k8s::RestClient& c, int t, std::size_t i) {
          c.get(kConfigMaps, "get",
                "w-" + std::to_string((i * 7 + static_cast<std::size_t>(t)) % kGetObjects));
        });
    print_rate("get configmap", threads, r);
  }

  std::printf("\n%-22s %8s %10s %12s %9s %12s\n", "watch fan-out", "watchers", "events",
              "delivered", "seconds", "events/s");
  for (int watchers : {1, 10, 100}) {
    const std::string ns = "live-" + std::to_string(watchers);
    create_namespace(*admin, ns);
    const std::string from = list_resource_version(*admin, ns);
    auto f = fan_out(sim.url(), ns, from, watchers, settings.events,
                     [&] { create_objects(*admin, ns, settings.events); });
    print_fan_out("live (1 writer)", watchers, settings.events, f);
  }
  for (int watchers : {1, 10, 100}) {
    const std::string ns = "backlog-" + std::to_string(watchers);
    create_namespace(*admin, ns);
    const std::string from = list_resource_version(*admin, ns);
    create_objects(*admin, ns, settings.events);
    auto f = fan_out(sim.url(), ns, from, watchers, settings.events, [] {});
    print_fan_out("backlog replay", watchers, settings.events, f);
  }
  sim.stop();
  return 0;
}
