#pragma once
// The nvcre-manager under test, run as its own process and measured from outside.
#include "bench/manager_bench.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <utility>
#include <string>
#include <vector>

namespace nvcre::bench {

struct MemoryKb {
  long rss = 0;
  long hwm = 0;
};

// Ends the running manager, so an interrupted bench does not leave it behind, then the bench
// itself; installed for SIGINT and SIGTERM.
void stop_manager_and_exit(int signal);

// User + system CPU seconds of this process: kube-sim (server, store, Trainer) and the bench's own
// clients, which do little beside it.
double bench_process_cpu_seconds();

class ManagerProcess {
 public:
  // Its stderr goes to $TMPDIR/nvcre_manager_bench.<phase>.<pid>.log.
  ManagerProcess(const Settings& settings, const std::string& server_url, const std::string& phase,
                 std::vector<std::string> extra_args = {});
  ~ManagerProcess();
  ManagerProcess(const ManagerProcess&) = delete;
  ManagerProcess& operator=(const ManagerProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log() const { return log_; }
  bool alive() const;

  // /readyz answers 200 once every watched kind is listed (the informer caches are synced).
  void wait_ready(std::chrono::seconds timeout) const;
  MemoryKb memory() const;
  // Resets VmHWM to the current VmRSS (/proc/<pid>/clear_refs "5"), so a later memory().hwm is the
  // peak since now; false when the kernel refused.
  bool reset_peak_memory() const;
  // User + system CPU seconds so far.
  double cpu_seconds() const;
  // Its API requests so far by (kind, verb), from its nvcre_api_requests_total metric.
  std::map<std::pair<std::string, std::string>, std::uint64_t> api_requests() const;
  // Every sample of the metric family `name` from its /metrics (Prometheus text format).
  std::vector<MetricSample> metric(const std::string& name) const;

 private:
  pid_t pid_ = -1;
  std::string kubeconfig_;
  std::string log_;
  unsigned short probe_port_ = 0;
  unsigned short metrics_port_ = 0;
};

}  // namespace nvcre::bench
