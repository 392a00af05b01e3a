// The rss phase: Certifications left in flight, the manager's memory against the JSON it caches
// (see manager_bench.cpp).
#include "bench/manager_bench_rss.hpp"

#include "actors/controllers.hpp"
#include "k8s/cache_transform.hpp"
#include "platform/gpu_defaults.hpp"
#include "sim/kube_sim.hpp"
#include "sim/request_log_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::bench {
namespace {

using namespace std::chrono_literals;

// object[a][b] when it is a string, else "".
std::string string_at(const json::value& object, std::string_view a, std::string_view b) {
  const auto* outer = object.if_object();
  const auto* inner = outer == nullptr ? nullptr : outer->if_contains(a);
  const auto* inner_object = inner == nullptr ? nullptr : inner->if_object();
  const auto* value = inner_object == nullptr ? nullptr : inner_object->if_contains(b);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
}

}  // namespace

CachedKinds cached_kinds(k8s::RestClient& client) {
  CachedKinds out;
  for (const auto& watch : actors::nvcre_watches()) {
    k8s::ListOptions options;
    options.label_selector = watch.label_selector;
    const json::value list = client.list(watch.resource, "", options);
    for (const auto& item : list.at("items").as_array()) {
      auto size = json::serialize(item).size();
      json::value trimmed = item;
      k8s::trim_for_cache(trimmed);
      auto trimmed_size = json::serialize(trimmed).size();
      out.count[watch.kind] += 1;
      out.bytes[watch.kind] += size;
      out.trimmed_bytes[watch.kind] += trimmed_size;
      out.total_count += 1;
      out.total_bytes += size;
      out.total_trimmed_bytes += trimmed_size;
      if (watch.kind == "Pod" && !string_at(item, "spec", "nodeName").empty()) ++out.bound_pods;
    }
  }
  return out;
}

namespace {

// The rss phase's default cluster: aws:h100 with room for every worker pod of the in-flight
// Certifications at once (G GPUs each), a multiple of K nodes so the slices tile it, at least 64.
std::string rss_cluster(const Settings& settings, int gpus_per_pod) {
  const int node_gpus = platform::gpu_defaults("h100", "aws").gpusPerNode;
  const long pods_per_node = std::max(1, node_gpus / std::max(1, gpus_per_pod));
  const long pods = static_cast<long>(settings.in_flight) * settings.nodes_per_cert;
  const long k = std::max(1, settings.nodes_per_cert);
  long nodes = (pods + pods_per_node - 1) / pods_per_node;
  nodes = std::max(64L, (nodes + k - 1) / k * k);
  return "aws:h100:" + std::to_string(nodes);
}

}  // namespace

void wait_idle(const ManagerProcess& manager, std::chrono::seconds timeout) {
  auto until = Clock::now() + timeout;
  double before = manager.cpu_seconds();
  while (Clock::now() < until) {
    std::this_thread::sleep_for(1s);
    double now = manager.cpu_seconds();
    if (now - before < 0.02) return;
    before = now;
  }
}

namespace {

std::size_t expected_trainjobs(const Settings& settings) {
  return static_cast<std::size_t>(settings.in_flight) *
         static_cast<std::size_t>(settings.nodes_per_cert / settings.nodes_per_job);
}

}  // namespace

// The manager's writes so far, as kube-sim counted them.
std::uint64_t manager_writes(k8s::RestClient& client) {
  std::uint64_t writes = 0;
  for (const auto& [verb, count] : manager_requests(client)) {
    if (sim::is_write_verb(verb)) writes += count;
  }
  return writes;
}

Settled wait_settled(const Settings& settings, k8s::RestClient& client) {
  constexpr auto kQuiet = std::chrono::seconds(2);
  std::uint64_t writes = manager_writes(client);
  auto last_write = Clock::now();
  double sim_cpu_at_last_write = bench_process_cpu_seconds();
  std::size_t previous_count = 0;
  std::size_t previous_bound = 0;
  int stable_rounds = 0;  // unchanged while short of the TrainJobs expected (some failed)
  const auto deadline = Clock::now() + std::chrono::seconds(60 + settings.in_flight / 2);
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(250ms);
    if (const auto now_writes = manager_writes(client); now_writes != writes) {
      writes = now_writes;
      last_write = Clock::now();
      sim_cpu_at_last_write = bench_process_cpu_seconds();
      continue;
    }
    if (Clock::now() - last_write < kQuiet) continue;
    CachedKinds at_peak = cached_kinds(client);
    const bool stable =
        at_peak.total_count == previous_count && at_peak.bound_pods == previous_bound;
    stable_rounds = stable ? stable_rounds + 1 : 0;
    const bool fanned_out = at_peak.count["TrainJob"] >= expected_trainjobs(settings) &&
                            at_peak.bound_pods == at_peak.count["Pod"];
    if (fanned_out || stable_rounds >= 3) break;
    previous_count = at_peak.total_count;
    previous_bound = at_peak.bound_pods;
  }
  return {last_write, sim_cpu_at_last_write};
}

void print_cached_kinds(const Settings& settings, CachedKinds& at_peak,
                        const CachedKinds& idle_cache) {
  std::printf("fan-out: %zu of %zu TrainJobs, %zu of %zu pods bound to a node\n",
              at_peak.count["TrainJob"], expected_trainjobs(settings), at_peak.bound_pods,
              at_peak.count["Pod"]);
  std::printf("%-14s %10s %14s %12s %14s\n", "cached kind", "objects", "JSON bytes", "bytes/object",
              "trimmed bytes");
  for (const auto& [kind, count] : at_peak.count) {
    std::printf("%-14s %10zu %14zu %12zu %14zu\n", kind.c_str(), count, at_peak.bytes[kind],
                at_peak.bytes[kind] / std::max<std::size_t>(1, count), at_peak.trimmed_bytes[kind]);
  }
  std::printf("%-14s %10zu %14zu %12s %14zu   (idle: %zu objects, %zu bytes)\n", "total",
              at_peak.total_count, at_peak.total_bytes, "", at_peak.total_trimmed_bytes,
              idle_cache.total_count, idle_cache.total_bytes);
}

void print_memory(const Settings& settings, const MemoryKb& idle, const MemoryKb& settled,
                  const CachedKinds& at_peak, const CachedKinds& idle_cache) {
  const std::size_t json_growth = at_peak.total_bytes - idle_cache.total_bytes;
  const double per_cert = 1024.0 / settings.in_flight;
  auto line = [&](const char* what, long kb) {
    const long growth_kb = kb - idle.rss;
    std::printf(
        "%-34s %9.1f MiB  growth %8.1f MiB  %7.1f KiB/Certification  growth/JSON %.2f (/JSON "
        "growth %.2f)\n",
        what, kb / 1024.0, growth_kb / 1024.0, growth_kb * per_cert / 1024.0,
        growth_kb * 1024.0 / static_cast<double>(at_peak.total_bytes),
        growth_kb * 1024.0 / static_cast<double>(std::max<std::size_t>(1, json_growth)));
  };
  std::printf("idle baseline (synced, %zu Nodes)  %9.1f MiB (VmRSS)\n",
              (idle_cache.count.count("Node") ? idle_cache.count.at("Node") : 0),
              idle.rss / 1024.0);
  line("settled VmRSS", settled.rss);
  line("peak VmHWM", settled.hwm);
  std::printf("JSON cached: %.1f MiB total, %.1f KiB per Certification\n",
              at_peak.total_bytes / 1048576.0,
              static_cast<double>(at_peak.total_bytes) / 1024.0 / settings.in_flight);
}

void run_rss(const Settings& settings) {
  const int gpus_per_node = settings.gpus_per_node.value_or(1);
  const std::string profile = settings.cluster.value_or(rss_cluster(settings, gpus_per_node));
  // No TrainJob ever finishes: every Certification stays in flight.
  auto cluster = start_cluster(profile, std::chrono::hours(24));
  const int node_count = cluster->profile().node_count;
  const int slices = std::max(1, node_count / settings.nodes_per_cert);
  auto driver = bench_client(*cluster);
  auto& client = *driver;
  // Unthrottled unless the caller sets --qps: what is cached does not depend on how fast it came.
  std::vector<std::string> extra;
  if (std::find(settings.manager_args.begin(), settings.manager_args.end(), "--qps") ==
      settings.manager_args.end()) {
    extra = {"--qps", "-1"};
  }
  ManagerProcess manager(settings, cluster->sim().url(), "rss", extra);
  std::fprintf(stderr, "rss phase: manager pid %d, log %s\n", manager.pid(), manager.log().c_str());
  manager.wait_ready(60s);

  std::printf(
      "\n== rss: %d Certifications in flight, cluster %s, %d nodes each, nodesPerJob %d, "
      "gpusPerNode %d ==\n",
      settings.in_flight, profile.c_str(), settings.nodes_per_cert, settings.nodes_per_job,
      gpus_per_node);
  print_load();
  wait_idle(manager, 30s);
  const MemoryKb idle = manager.memory();
  const CachedKinds idle_cache = cached_kinds(client);

  const auto started = Clock::now();
  const double manager_cpu_at_start = manager.cpu_seconds();
  const double sim_cpu_at_start = bench_process_cpu_seconds();
  for (int i = 0; i < settings.in_flight; ++i) {
    client.create(
        kCertifications, kNamespace,
        certification("rss-" + std::to_string(i), slice_nodes(i % slices, settings, node_count),
                      settings.nodes_per_job, gpus_per_node));
  }
  const Settled done = wait_settled(settings, client);
  const MemoryKb settled = manager.memory();
  const double cpu_settled = manager.cpu_seconds();
  const double sim_cpu = done.sim_cpu_at_last_write - sim_cpu_at_start;
  CachedKinds at_peak = cached_kinds(client);
  const double settle_s = std::chrono::duration<double>(done.last_write - started).count();

  std::printf(
      "settled in %.1f s (the manager's last write); manager CPU %.1f s (%.1f s of it since the "
      "first create); kube-sim and the bench's client %.1f s from the first create to the last "
      "write\n",
      settle_s, cpu_settled, cpu_settled - manager_cpu_at_start, sim_cpu);
  print_requests(manager.api_requests(), manager_requests(client), settings.in_flight);
  print_cached_kinds(settings, at_peak, idle_cache);
  print_memory(settings, idle, settled, at_peak, idle_cache);
  print_load();
}

}  // namespace nvcre::bench
