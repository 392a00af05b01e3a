// The fleet phase (not part of "all"): the manager at fleet size, and a forced relist of every
// watch there (see manager_bench.cpp). kube-sim holds --cluster (10,000 H100 nodes by default);
// the --in-flight Certifications (2,000) each run on their own slice of nodes marked stalled
// (kube-sim's Trainer starts their pods, which log a little and then run until deleted: in flight
// with live workloads, as a long certification is, while the Trainer's step stays short for the
// others); a stream of short Certifications (--concurrency at a time) on the slices after them
// finishes all along, timed as the latency phase times them.
//   1. start-up sync: from spawning the manager to /readyz (every watched kind listed); VmRSS idle.
//   2. the in-flight Certifications created and settled (rss phase's figures).
//   3. --relists times, 30 s apart: DELETE /sim/watches ends every watch and compacts kube-sim's
//      event log, so every reflector resumes into 410 Expired and relists. The relist is over when
//      every watched kind's nvcre_watch_restarts_total has moved (the manager counts a restart as
//      the list's replace goes to its cache). Reported per relist: its time (and the slowest
//      kinds), the manager's VmRSS before it and its peak during it (VmHWM, reset just before),
//      the cached objects before and after (nvcre_cache_objects), CPU of the manager and of
//      kube-sim. Then the completion latency of the stream's Certifications: those whose last
//      TrainJob -> Succeeded overlapped a relist beside those before the first relist and those
//      after one.
#include "bench/manager_bench_latency.hpp"
#include "bench/manager_bench_process.hpp"
#include "bench/manager_bench_rss.hpp"

#include "actors/controllers.hpp"
#include "sim/api_server.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/kube_sim.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <exception>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::bench {
namespace {

using namespace std::chrono_literals;

// CPU seconds of the manager and of kube-sim over a stretch of the run.
class CpuSpan {
 public:
  explicit CpuSpan(const ManagerProcess& manager)
      : manager_(manager),
        manager_at_(manager.cpu_seconds()),
        sim_at_(bench_process_cpu_seconds()) {}
  std::string text() const {
    char out[96];
    std::snprintf(out, sizeof out, "manager CPU %.1f s, kube-sim + bench CPU %.1f s",
                  manager_.cpu_seconds() - manager_at_, bench_process_cpu_seconds() - sim_at_);
    return out;
  }

 private:
  const ManagerProcess& manager_;
  double manager_at_;
  double sim_at_;
};

// The sum of a metric family's samples by the value of `label`.
std::map<std::string, double> by_label(const std::vector<MetricSample>& samples,
                                       const std::string& label) {
  std::map<std::string, double> out;
  for (const auto& sample : samples) {
    auto it = sample.labels.find(label);
    out[it == sample.labels.end() ? std::string() : it->second] += sample.value;
  }
  return out;
}

double cached_objects(const ManagerProcess& manager) {
  double total = 0;
  for (const auto& sample : manager.metric("nvcre_cache_objects")) total += sample.value;
  return total;
}

double mib(long kb) { return kb / 1024.0; }

struct Relist {
  Clock::time_point forced, done;
  std::map<std::string, double> kind_ms;  // per watched kind: forced -> its relist in the cache
  bool complete = false;                  // every kind relisted before the timeout
  bool peak_reset = false;                // VmHWM reset just before: after.hwm is the relist's peak
  MemoryKb before, after;
  double objects_before = 0, objects_after = 0;
  std::string cpu;
};

// Forces the relist and waits (up to `timeout`) until every watched kind has relisted.
Relist force_relist(const ManagerProcess& manager, k8s::RestClient& client,
                    std::chrono::seconds timeout) {
  Relist relist;
  const auto restarts_before = by_label(manager.metric("nvcre_watch_restarts_total"), "kind");
  std::set<std::string> waiting;
  for (const auto& watch : actors::nvcre_watches()) waiting.insert(watch.kind);
  relist.objects_before = cached_objects(manager);
  relist.peak_reset = manager.reset_peak_memory();
  relist.before = manager.memory();
  CpuSpan cpu(manager);
  relist.forced = Clock::now();
  const auto reset = client.request({"DELETE", "/sim/watches", {}, "", ""});
  if (reset.status != 200) throw std::runtime_error("DELETE /sim/watches: " + reset.body);
  while (!waiting.empty() && Clock::now() < relist.forced + timeout) {
    std::this_thread::sleep_for(50ms);
    std::map<std::string, double> restarts;
    try {
      restarts = by_label(manager.metric("nvcre_watch_restarts_total"), "kind");
    } catch (const std::exception& e) {
      std::printf("  (/metrics unanswered: %s)\n", e.what());
      continue;
    }
    const auto at = Clock::now();
    for (auto it = waiting.begin(); it != waiting.end();) {
      auto was = restarts_before.find(*it);
      auto now = restarts.find(*it);
      if (now != restarts.end() &&
          now->second > (was == restarts_before.end() ? 0.0 : was->second)) {
        relist.kind_ms[*it] = ms(at - relist.forced);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
  }
  relist.done = Clock::now();
  relist.complete = waiting.empty();
  relist.after = manager.memory();
  relist.cpu = cpu.text();
  relist.objects_after = cached_objects(manager);
  return relist;
}

void print_relist(int index, const Relist& relist) {
  std::vector<std::pair<double, std::string>> slowest;
  for (const auto& [kind, took] : relist.kind_ms) slowest.emplace_back(took, kind);
  std::sort(slowest.rbegin(), slowest.rend());
  std::printf("relist %d: %s in %.0f ms (forced -> the last watched kind's list in the cache)%s\n",
              index, relist.complete ? "every watch relisted" : "NOT every watch relisted",
              ms(relist.done - relist.forced), relist.complete ? "" : " (timed out)");
  std::printf("  slowest kinds:");
  for (std::size_t i = 0; i < slowest.size() && i < 4; ++i)
    std::printf(" %s %.0f ms", slowest[i].second.c_str(), slowest[i].first);
  std::printf(
      "\n  manager VmRSS before %.1f MiB, after %.1f MiB; peak during (VmHWM%s) %.1f MiB, "
      "%+.1f MiB over before\n",
      mib(relist.before.rss), mib(relist.after.rss),
      relist.peak_reset ? ", reset at the start" : ": NOT reset, since start",
      mib(relist.after.hwm), mib(relist.after.hwm - relist.before.rss));
  std::printf("  cached objects (nvcre_cache_objects) before %.0f, after %.0f; %s\n",
              relist.objects_before, relist.objects_after, relist.cpu.c_str());
  print_load();
}

// The stream's completion latency, split by when each Certification finished.
void print_relist_latencies(const ChainLatencies& latencies, const std::vector<Relist>& relists) {
  std::vector<double> before, during, after;
  for (std::size_t i = 0; i < latencies.chains.size(); ++i) {
    const auto& [from, to] = latencies.chains[i];
    bool overlapped = false;
    for (const auto& relist : relists)
      overlapped = overlapped || (from < relist.done && to > relist.forced);
    if (overlapped)
      during.push_back(latencies.total[i]);
    else if (relists.empty() || to <= relists.front().forced)
      before.push_back(latencies.total[i]);
    else
      after.push_back(latencies.total[i]);
  }
  std::printf("last TrainJob Complete -> Certification Succeeded of the short Certifications:\n");
  print_row_header();
  print_row("  before the first relist: n = " + std::to_string(before.size()), before);
  print_row("  overlapping a relist: n = " + std::to_string(during.size()), during);
  print_row("  after a relist was over: n = " + std::to_string(after.size()), after);
}

// The in-flight Certifications' slices: their nodes stall, so their groups run until deleted.
std::vector<std::string> in_flight_nodes(const Settings& settings, int node_count) {
  std::vector<std::string> nodes;
  for (int slice = 0; slice < settings.in_flight; ++slice)
    for (auto& node : slice_nodes(slice, settings, node_count)) nodes.push_back(std::move(node));
  return nodes;
}

}  // namespace

void run_fleet(const Settings& settings) {
  const std::string profile =
      settings.cluster.value_or(settings.quick ? "aws:h100:64" : "aws:h100:10000");
  const int node_count = sim::parse_cluster_profile(profile).node_count;
  const int slices = node_count / settings.nodes_per_cert;
  if (settings.in_flight + settings.concurrency > slices)
    throw std::runtime_error("fleet: " + std::to_string(settings.in_flight) + " + " +
                             std::to_string(settings.concurrency) + " slices of " +
                             std::to_string(settings.nodes_per_cert) + " nodes do not fit " +
                             profile);
  const auto quiet = settings.quick ? 5s : 30s;  // the stream alone, before and after each relist

  std::printf(
      "\n== fleet: cluster %s, %d Certifications in flight, a stream of %d at a time, %d nodes "
      "each, nodesPerJob %d, trainer step %d ms, %d forced relist(s) ==\n",
      profile.c_str(), settings.in_flight, settings.concurrency, settings.nodes_per_cert,
      settings.nodes_per_job, settings.trainer_step_ms, settings.relists);
  print_load();
  auto started = Clock::now();
  auto cluster = start_cluster(profile, std::chrono::milliseconds(settings.trainer_step_ms),
                               in_flight_nodes(settings, node_count));
  std::printf("kube-sim started with %d nodes in %.1f s\n", node_count,
              std::chrono::duration<double>(Clock::now() - started).count());
  Recorder recorder;
  CommitObserver observer(cluster->sim().api().store(), recorder);
  auto driver = bench_client(*cluster);

  // 1. Start-up sync.
  started = Clock::now();
  ManagerProcess manager(settings, cluster->sim().url(), "fleet");
  std::fprintf(stderr, "fleet phase: manager pid %d, log %s\n", manager.pid(),
               manager.log().c_str());
  const double sim_cpu_at_spawn = bench_process_cpu_seconds();
  manager.wait_ready(std::chrono::seconds(600));
  const double sync_s = std::chrono::duration<double>(Clock::now() - started).count();
  const double sync_manager_cpu = manager.cpu_seconds();
  const double sync_sim_cpu = bench_process_cpu_seconds() - sim_cpu_at_spawn;
  const MemoryKb at_sync = manager.memory();
  wait_idle(manager, 30s);
  const MemoryKb idle = manager.memory();
  const CachedKinds idle_cache = cached_kinds(*driver);
  std::printf(
      "start-up sync (spawn -> /readyz, every watched kind listed): %.2f s; manager CPU %.1f s, "
      "kube-sim + bench CPU %.1f s\n",
      sync_s, sync_manager_cpu, sync_sim_cpu);
  std::printf(
      "manager idle: VmRSS %.1f MiB (at /readyz %.1f MiB; VmHWM %.1f MiB), %.0f objects "
      "cached\n",
      mib(idle.rss), mib(at_sync.rss), mib(idle.hwm), cached_objects(manager));
  print_load();

  // 2. The Certifications in flight.
  started = Clock::now();
  {
    CpuSpan cpu(manager);
    for (int i = 0; i < settings.in_flight; ++i)
      driver->create(
          kCertifications, kNamespace,
          certification("fleet-" + std::to_string(i), slice_nodes(i, settings, node_count),
                        settings.nodes_per_job, settings.gpus_per_node));
    const auto last_write = wait_settled(settings, *driver).last_write;
    std::printf("%d Certifications in flight, settled in %.1f s (the manager's last write); %s\n",
                settings.in_flight, std::chrono::duration<double>(last_write - started).count(),
                cpu.text().c_str());
  }
  const MemoryKb settled = manager.memory();
  CachedKinds at_peak = cached_kinds(*driver);
  print_cached_kinds(settings, at_peak, idle_cache);
  print_memory(settings, idle, settled, at_peak, idle_cache);
  print_load();

  // 3. The stream, and the forced relists while it runs.
  std::stop_source stop;
  CertificationStream stream;
  stream.first_slice = settings.in_flight;
  stream.concurrency = settings.concurrency;
  stream.count = INT_MAX;
  stream.deadline = Clock::now() + std::chrono::hours(2);
  stream.stop = stop.get_token();
  int finished = 0;
  std::exception_ptr stream_error;
  std::thread streaming([&, client = bench_client(*cluster)] {
    try {
      finished = run_certifications(settings, *client, recorder, node_count, stream, manager.log());
    } catch (...) {
      stream_error = std::current_exception();
    }
  });
  std::vector<Relist> relists;
  try {
    std::this_thread::sleep_for(quiet);
    for (int r = 0; r < settings.relists; ++r) {
      relists.push_back(force_relist(manager, *driver, std::chrono::seconds(600)));
      print_relist(r + 1, relists.back());
      std::this_thread::sleep_for(quiet);
    }
  } catch (...) {
    stop.request_stop();
    streaming.join();
    throw;
  }
  stop.request_stop();
  streaming.join();
  if (stream_error) std::rethrow_exception(stream_error);
  observer.stop();
  auto seen = recorder.snapshot();
  const ChainLatencies latencies = chain_latencies(seen);
  std::printf(
      "the stream: %d short Certifications finished (%d not Succeeded, %d without a complete "
      "chain); %d still in flight (the --in-flight ones)\n",
      finished, latencies.failed, latencies.incomplete, latencies.unfinished);
  print_relist_latencies(latencies, relists);
  std::printf("manager VmRSS at the end %.1f MiB\n", mib(manager.memory().rss));
  print_load();
}

}  // namespace nvcre::bench
