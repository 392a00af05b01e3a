#pragma once
// One measured throughput run (N Certifications created at once, timed to their verdicts), shared
// by the throughput phase and the isolation phase, which runs it clean and then beside faulty
// Certifications (see manager_bench.cpp).
#include "bench/manager_bench.hpp"

#include "sim/fault_plan.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::bench {

// What a run adds to the N measured Certifications.
struct ThroughputFaults {
  std::vector<json::value> extra_certifications;  // created with the others, not counted
  std::vector<std::string> manager_args;          // e.g. --fault-reconcile-throw
  std::optional<sim::FaultPlan> plan;             // kube-sim's fault plan during the run
  // Extras whose verdict is waited for after the N (each up to the grace), for their times.
  std::vector<std::string> awaited;
  std::chrono::seconds awaited_grace{60};
};

struct ThroughputRun {
  std::size_t finished = 0;  // of the N measured Certifications
  double wall_s = 0;         // from the first create to the N-th verdict (or the deadline)
  double manager_cpu_s = 0;
  double sim_cpu_s = 0;
  RequestsByKind requests;           // the manager's, by kind and verb
  std::vector<MetricSample> passes;  // its nvcre_reconcile_total
  std::map<std::string, std::uint64_t> sim_counted;
  std::map<std::string, double> extra_verdict_s;  // extras that reached a verdict, by name
  std::string manager_log;

  double rate() const { return wall_s > 0 ? static_cast<double>(finished) / wall_s : 0; }
};

// Nodes for `certifications` slices of settings.nodes_per_cert (at least 64).
std::string throughput_cluster_profile(const Settings& settings, int certifications);

// The Trainer step of throughput runs: 20 ms unless --trainer-step-ms.
int throughput_step_ms(const Settings& settings);

// Starts a manager on `cluster`, creates tp-0..tp-N-1 plus the extras at once, waits for the N
// verdicts (60 s + 1 s per Certification at most), then stops the manager.
ThroughputRun measure_throughput(nvcre::manager::EmbeddedCluster& cluster, const Settings& settings,
                                 const std::string& phase, const ThroughputFaults& faults = {});

void print_throughput(const ThroughputRun& run, int certifications);

}  // namespace nvcre::bench
