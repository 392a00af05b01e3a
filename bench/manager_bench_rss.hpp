#pragma once
// The rss phase's pieces, also used by the fleet phase: what the manager caches as the API returns
// it, waiting for the manager to go idle and for Certifications in flight to settle, and how the
// memory figures are printed (see manager_bench.cpp).
#include "bench/manager_bench.hpp"
#include "bench/manager_bench_process.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <string>

namespace nvcre::bench {

struct CachedKinds {
  std::map<std::string, std::size_t> count;
  std::map<std::string, std::size_t> bytes;
  std::map<std::string, std::size_t> trimmed_bytes;  // what the cache keeps (k8s::trim_for_cache)
  std::size_t total_count = 0;
  std::size_t total_bytes = 0;
  std::size_t total_trimmed_bytes = 0;
  std::size_t bound_pods = 0;  // pods with spec.nodeName: the Trainer placed them
};

// Every object the manager caches, as the API returns it (the list's items).
CachedKinds cached_kinds(k8s::RestClient& client);

// The manager is idle when it used under 2% of a core over the last second; waits at most
// `timeout` for that.
void wait_idle(const ManagerProcess& manager, std::chrono::seconds timeout);

// Settled: every one of settings.in_flight Certifications has its TrainJobs with their pods bound
// (or the watched objects stopped changing in number for three checks short of that: some failed),
// and the manager has written nothing (kube-sim's count of its creates, updates, patches and
// deletes) for two seconds. Returns when its last write was seen: the settle time, without the
// quiet window that proves it, and this process's CPU seconds then (the quiet window and the
// listing that ends it come after). Idle CPU is no criterion: the periodic passes of thousands of
// running Jobs and measurements keep a settled manager at a few percent of a core.
struct Settled {
  Clock::time_point last_write;
  double sim_cpu_at_last_write = 0;
};
Settled wait_settled(const Settings& settings, k8s::RestClient& client);

void print_cached_kinds(const Settings& settings, CachedKinds& at_peak,
                        const CachedKinds& idle_cache);
// VmRSS / VmHWM once settled against the idle baseline, per Certification in flight and per byte
// of JSON cached.
void print_memory(const Settings& settings, const MemoryKb& idle, const MemoryKb& settled,
                  const CachedKinds& at_peak, const CachedKinds& idle_cache);

}  // namespace nvcre::bench
