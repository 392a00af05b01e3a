// The throughput phase: N Certifications created at once on a Trainer with a near-zero step, timed
// to their verdicts; then kube-sim's raw floor for the same request mix, replayed in the same run
// (see manager_bench.cpp).
#include "bench/manager_bench_throughput.hpp"
#include "bench/manager_bench_process.hpp"

#include "sim/api_server.hpp"
#include "sim/kube_sim.hpp"
#include "sim/store.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::bench {
namespace {

using namespace std::chrono_literals;

const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};

// Counts the measured Certifications (names in `counted`) turning terminal as kube-sim's store
// commits them, and times the others' verdicts from `started`.
class VerdictCounter {
 public:
  VerdictCounter(sim::Store& store, std::set<std::string> counted)
      : store_(store), counted_(std::move(counted)) {
    store_.set_on_commit([this](const sim::WatchEvent& event) {
      if (event.group != kCertifications.group || event.resource != kCertifications.resource)
        return;
      if (terminal_condition(*event.object).empty()) return;
      std::string name(event.object->at("metadata").at("name").as_string());
      const auto now = Clock::now();
      std::lock_guard lock(mutex_);
      if (!counted_.contains(name)) {
        others_.emplace(std::move(name), std::chrono::duration<double>(now - started_).count());
        changed_.notify_all();
      } else if (done_.insert(std::move(name)).second) {
        changed_.notify_all();
      }
    });
  }
  ~VerdictCounter() { store_.set_on_commit(nullptr); }
  VerdictCounter(const VerdictCounter&) = delete;
  VerdictCounter& operator=(const VerdictCounter&) = delete;

  void start(Clock::time_point at) {
    std::lock_guard lock(mutex_);
    started_ = at;
  }
  // Blocks until every counted Certification has its verdict (or `deadline`); returns how many do.
  std::size_t wait_for_all(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline, [&] { return done_.size() >= counted_.size(); });
    return done_.size();
  }
  // Blocks until `name`, not counted, has its verdict (or `deadline`).
  bool wait_for_other(const std::string& name, Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, deadline, [&] { return others_.contains(name); });
  }
  std::map<std::string, double> others() {
    std::lock_guard lock(mutex_);
    return others_;
  }

 private:
  sim::Store& store_;
  const std::set<std::string> counted_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Clock::time_point started_ = Clock::now();
  std::set<std::string> done_;
  std::map<std::string, double> others_;
};

// ---------------------------------------------------------------------------------------------
// kube-sim's floor: the manager's request mix (verbs as counted by kind), replayed as ConfigMap
// requests from `clients` threads with no client-side limit. ConfigMaps carry a payload of about
// the size of the manager's objects; a status patch becomes a patch of the object itself.

struct Floor {
  std::uint64_t requests = 0;
  double wall_s = 0;
  double cpu_s = 0;
};

json::value floor_object(const std::string& name) {
  return json::object{{"metadata", json::object{{"name", name}}},
                      {"data", json::object{{"payload", std::string(2048, 'x')}}}};
}

// One client's share: creates first (every later verb needs its object), then reads and writes
// round-robin over the created objects, deletes last.
void replay_share(k8s::RestClient& client, int share, int clients, const RequestsByKind& mix,
                  const std::string& ns) {
  std::uint64_t creates = 0, deletes = 0;
  std::vector<std::string> others;
  for (const auto& [key, count] : mix) {
    const std::string& verb = key.second;
    for (std::uint64_t i = static_cast<std::uint64_t>(share); i < count;
         i += static_cast<std::uint64_t>(clients)) {
      if (verb == "Create") {
        ++creates;
      } else if (verb == "Delete") {
        ++deletes;
      } else {
        others.push_back(verb);
      }
    }
  }
  // A Delete needs an object of its own: a share with more deletes than creates creates the rest.
  const std::uint64_t objects = std::max<std::uint64_t>({creates, deletes, 1});
  auto name = [&](std::uint64_t i) {
    return "floor-" + std::to_string(share) + "-" + std::to_string(i);
  };
  for (std::uint64_t i = 0; i < objects; ++i) client.create(kConfigMaps, ns, floor_object(name(i)));
  std::uint64_t next = 0;
  for (const auto& verb : others) {
    const std::string target = name(next++ % objects);
    if (verb == "LiveGet") {
      client.get(kConfigMaps, ns, target);
    } else if (verb == "Update") {
      json::value object = floor_object(target);
      client.update(kConfigMaps, ns, object);
    } else {  // MergePatch, MergePatchStatus
      client.merge_patch(kConfigMaps, ns, target,
                         json::object{{"data", json::object{{"step", std::to_string(next)}}}});
    }
  }
  for (std::uint64_t i = 0; i < deletes; ++i) client.remove(kConfigMaps, ns, name(i));
}

Floor replay_floor(const nvcre::manager::EmbeddedCluster& cluster, const RequestsByKind& mix,
                   int clients) {
  const std::string ns = "floor";
  auto admin = bench_client(cluster);
  admin->create({"", "v1", "namespaces", false}, "",
                json::object{{"metadata", json::object{{"name", ns}}}});
  std::vector<std::unique_ptr<k8s::RestClient>> load;
  for (int c = 0; c < clients; ++c) load.push_back(bench_client(cluster));
  Floor floor;
  for (const auto& [key, count] : mix) floor.requests += count;
  const double cpu_before = bench_process_cpu_seconds();
  const auto started = Clock::now();
  std::vector<std::thread> threads;
  std::atomic<bool> failed{false};
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      try {
        replay_share(*load[static_cast<std::size_t>(c)], c, clients, mix, ns);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "floor replay client %d: %s\n", c, error.what());
        failed = true;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  floor.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  floor.cpu_s = bench_process_cpu_seconds() - cpu_before;
  if (failed) throw std::runtime_error("the kube-sim floor replay failed (see above)");
  return floor;
}

}  // namespace

std::string throughput_cluster_profile(const Settings& settings, int certifications) {
  const int nodes = std::max(64, certifications * settings.nodes_per_cert);
  return settings.cluster.value_or("aws:h100:" + std::to_string(nodes));
}

int throughput_step_ms(const Settings& settings) {
  return settings.trainer_step_set ? settings.trainer_step_ms : 20;
}

ThroughputRun measure_throughput(nvcre::manager::EmbeddedCluster& cluster, const Settings& settings,
                                 const std::string& phase, const ThroughputFaults& faults) {
  const int n = settings.certifications;
  const int node_count = cluster.profile().node_count;
  const int slices = std::max(1, node_count / settings.nodes_per_cert);
  std::set<std::string> counted;
  for (int i = 0; i < n; ++i) counted.insert("tp-" + std::to_string(i));
  VerdictCounter verdicts(cluster.sim().api().store(), counted);
  std::vector<std::string> extra = faults.manager_args;
  if (std::find(settings.manager_args.begin(), settings.manager_args.end(), "--qps") ==
      settings.manager_args.end()) {
    extra.insert(extra.end(), {"--qps", "-1"});
  }
  if (faults.plan) cluster.sim().api().faults().set_plan(*faults.plan);
  auto manager = std::make_unique<ManagerProcess>(settings, cluster.sim().url(), phase, extra);
  std::fprintf(stderr, "%s phase: manager pid %d, log %s\n", phase.c_str(), manager->pid(),
               manager->log().c_str());
  manager->wait_ready(60s);

  auto driver = bench_client(cluster);
  ThroughputRun run;
  run.manager_log = manager->log();
  const double manager_cpu_before = manager->cpu_seconds();
  const double sim_cpu_before = bench_process_cpu_seconds();
  const auto started = Clock::now();
  verdicts.start(started);
  for (int i = 0; i < n; ++i) {
    driver->create(
        kCertifications, kNamespace,
        certification("tp-" + std::to_string(i), slice_nodes(i % slices, settings, node_count),
                      settings.nodes_per_job, settings.gpus_per_node));
  }
  for (const auto& object : faults.extra_certifications)
    driver->create(kCertifications, kNamespace, object);
  run.finished = verdicts.wait_for_all(started + std::chrono::seconds(60 + n));
  run.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  run.manager_cpu_s = manager->cpu_seconds() - manager_cpu_before;
  run.sim_cpu_s = bench_process_cpu_seconds() - sim_cpu_before;
  for (const auto& name : faults.awaited)
    verdicts.wait_for_other(name, Clock::now() + faults.awaited_grace);
  run.requests = manager->api_requests();
  run.passes = manager->metric("nvcre_reconcile_total");
  run.sim_counted = manager_requests(*driver);
  run.extra_verdict_s = verdicts.others();
  manager.reset();
  if (faults.plan) cluster.sim().api().faults().set_plan({});
  if (run.finished < static_cast<std::size_t>(n))
    std::printf("WARNING: only %zu of %d Certifications reached a verdict in time\n", run.finished,
                n);
  return run;
}

void print_throughput(const ThroughputRun& run, int certifications) {
  std::printf(
      "%zu of %d Certifications to verdict in %.2f s: %.1f Certifications/s; manager CPU %.2f s "
      "(%.2f ms each); kube-sim (bench process) CPU %.2f s\n",
      run.finished, certifications, run.wall_s, run.rate(), run.manager_cpu_s,
      run.finished == 0 ? 0.0 : 1000.0 * run.manager_cpu_s / static_cast<double>(run.finished),
      run.sim_cpu_s);
}

void run_throughput(const Settings& settings) {
  const std::string profile = throughput_cluster_profile(settings, settings.certifications);
  const int step_ms = throughput_step_ms(settings);
  auto cluster = start_cluster(profile, std::chrono::milliseconds(step_ms));
  std::printf(
      "\n== throughput: %d Certifications created at once, cluster %s, %d nodes each, nodesPerJob "
      "%d, trainer step %d ms ==\n",
      settings.certifications, profile.c_str(), settings.nodes_per_cert, settings.nodes_per_job,
      step_ms);
  print_load();
  const ThroughputRun run = measure_throughput(*cluster, settings, "throughput");
  print_throughput(run, settings.certifications);
  print_requests(run.requests, run.sim_counted, static_cast<int>(run.finished));
  print_passes(run.passes, static_cast<int>(run.finished));

  const Floor floor = replay_floor(*cluster, run.requests, settings.floor_clients);
  const double per_cert = static_cast<double>(floor.requests) / static_cast<double>(run.finished);
  const double floor_rate = static_cast<double>(floor.requests) / floor.wall_s / per_cert;
  std::printf(
      "kube-sim floor, the same %llu requests as ConfigMap verbs from %d clients: %.2f s, %.0f "
      "requests/s, CPU %.2f s = %.1f Certifications/s\n",
      static_cast<unsigned long long>(floor.requests), settings.floor_clients, floor.wall_s,
      static_cast<double>(floor.requests) / floor.wall_s, floor.cpu_s, floor_rate);
  std::printf("throughput / floor: %.2f\n", run.rate() / floor_rate);
  print_load();
}

}  // namespace nvcre::bench
