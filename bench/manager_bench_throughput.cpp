// The throughput phase: N Certifications created at once on a Trainer with a near-zero step, timed
// to their verdicts; then kube-sim's raw floor for the same request mix, replayed in the same run
// (see manager_bench.cpp).
#include "bench/manager_bench.hpp"
#include "bench/manager_bench_process.hpp"

#include "sim/api_server.hpp"
#include "sim/kube_sim.hpp"
#include "sim/store.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace nvcre::bench {
namespace {

using namespace std::chrono_literals;

const k8s::ResourceRef kConfigMaps{"", "v1", "configmaps", true};

// CPU seconds (user + system) of this process: kube-sim's threads, plus the bench's own driver
// and commit hook, which do little beside it.
double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Counts Certifications turning terminal as kube-sim's store commits them.
class VerdictCounter {
 public:
  explicit VerdictCounter(sim::Store& store) : store_(store) {
    store_.set_on_commit([this](const sim::WatchEvent& event) {
      if (event.group != kCertifications.group || event.resource != kCertifications.resource)
        return;
      if (terminal_condition(*event.object).empty()) return;
      std::string name(event.object->at("metadata").at("name").as_string());
      std::lock_guard lock(mutex_);
      if (done_.insert(std::move(name)).second) changed_.notify_all();
    });
  }
  ~VerdictCounter() { store_.set_on_commit(nullptr); }
  VerdictCounter(const VerdictCounter&) = delete;
  VerdictCounter& operator=(const VerdictCounter&) = delete;

  // Blocks until `count` verdicts (or `deadline`); returns how many there were.
  std::size_t wait_for(std::size_t count, Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline, [&] { return done_.size() >= count; });
    return done_.size();
  }

 private:
  sim::Store& store_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::set<std::string> done_;
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
  const double cpu_before = process_cpu_seconds();
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
  floor.cpu_s = process_cpu_seconds() - cpu_before;
  if (failed) throw std::runtime_error("the kube-sim floor replay failed (see above)");
  return floor;
}

}  // namespace

void run_throughput(const Settings& settings) {
  const int n = settings.certifications;
  const int nodes = std::max(64, n * settings.nodes_per_cert);
  const std::string profile = settings.cluster.value_or("aws:h100:" + std::to_string(nodes));
  const int step_ms = settings.trainer_step_set ? settings.trainer_step_ms : 20;
  auto cluster = start_cluster(profile, std::chrono::milliseconds(step_ms));
  const int node_count = cluster->profile().node_count;
  const int slices = std::max(1, node_count / settings.nodes_per_cert);
  VerdictCounter verdicts(cluster->sim().api().store());
  std::vector<std::string> extra;
  if (std::find(settings.manager_args.begin(), settings.manager_args.end(), "--qps") ==
      settings.manager_args.end()) {
    extra = {"--qps", "-1"};
  }
  auto manager =
      std::make_unique<ManagerProcess>(settings, cluster->sim().url(), "throughput", extra);
  std::fprintf(stderr, "throughput phase: manager pid %d, log %s\n", manager->pid(),
               manager->log().c_str());
  manager->wait_ready(60s);

  std::printf(
      "\n== throughput: %d Certifications created at once, cluster %s, %d nodes each, nodesPerJob "
      "%d, trainer step %d ms ==\n",
      n, profile.c_str(), settings.nodes_per_cert, settings.nodes_per_job, step_ms);
  print_load();
  auto driver = bench_client(*cluster);
  const double manager_cpu_before = manager->cpu_seconds();
  const double sim_cpu_before = process_cpu_seconds();
  const auto started = Clock::now();
  for (int i = 0; i < n; ++i) {
    driver->create(
        kCertifications, kNamespace,
        certification("tp-" + std::to_string(i), slice_nodes(i % slices, settings, node_count),
                      settings.nodes_per_job, settings.gpus_per_node));
  }
  const std::size_t finished =
      verdicts.wait_for(static_cast<std::size_t>(n), started + std::chrono::seconds(60 + n));
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  const double manager_cpu = manager->cpu_seconds() - manager_cpu_before;
  const double sim_cpu = process_cpu_seconds() - sim_cpu_before;
  const auto requests = manager->api_requests();
  const auto sim_counted = manager_requests(*driver);
  manager.reset();  // the floor runs on a quiet kube-sim
  if (finished < static_cast<std::size_t>(n))
    std::printf("WARNING: only %zu of %d Certifications reached a verdict in time\n", finished, n);
  const double rate = static_cast<double>(finished) / wall;
  std::printf(
      "%zu Certifications to verdict in %.2f s: %.1f Certifications/s; manager CPU %.2f s (%.2f ms "
      "each); kube-sim (bench process) CPU %.2f s\n",
      finished, wall, rate, manager_cpu, 1000.0 * manager_cpu / static_cast<double>(finished),
      sim_cpu);
  print_requests(requests, sim_counted, static_cast<int>(finished));

  const Floor floor = replay_floor(*cluster, requests, settings.floor_clients);
  const double per_cert = static_cast<double>(floor.requests) / static_cast<double>(finished);
  const double floor_rate = static_cast<double>(floor.requests) / floor.wall_s / per_cert;
  std::printf(
      "kube-sim floor, the same %llu requests as ConfigMap verbs from %d clients: %.2f s, %.0f "
      "requests/s, CPU %.2f s = %.1f Certifications/s\n",
      static_cast<unsigned long long>(floor.requests), settings.floor_clients, floor.wall_s,
      static_cast<double>(floor.requests) / floor.wall_s, floor.cpu_s, floor_rate);
  std::printf("throughput / floor: %.2f\n", rate / floor_rate);
  print_load();
}

}  // namespace nvcre::bench
