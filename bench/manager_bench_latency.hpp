#pragma once
// Completion latency as kube-sim's store commits each write (see manager_bench.cpp): the latency
// phase's pieces, also used by the fleet phase. A Recorder fed by a CommitObserver timestamps the
// first write showing each TrainJob, Job, Workflow or Certification terminal; run_certifications
// drives a stream of Certifications; chain_latencies turns what was recorded into figures.
#include "bench/manager_bench.hpp"

#include "sim/store.hpp"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvcre::bench {

// Per object: its controlling owner and when it was first seen terminal.
struct Seen {
  std::string owner;
  std::string terminal;
  std::optional<Clock::time_point> terminal_at;
};

using SeenByKind = std::map<std::string, std::map<std::string, Seen>>;  // kind -> name -> seen

class Recorder {
 public:
  void observe(const std::string& kind, const json::value& object, Clock::time_point at);
  // Blocks until one of `names` is terminal (or `deadline`); returns it, or "".
  std::string wait_for_terminal(const std::vector<std::string>& names, Clock::time_point deadline);
  SeenByKind snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  SeenByKind seen_;
};

// Feeds the recorder from kube-sim's store as each write commits, for the kinds of the chain.
class CommitObserver {
 public:
  CommitObserver(sim::Store& store, Recorder& recorder);
  ~CommitObserver() { stop(); }
  CommitObserver(const CommitObserver&) = delete;
  CommitObserver& operator=(const CommitObserver&) = delete;
  void stop() { store_.set_on_commit(nullptr); }

 private:
  sim::Store& store_;
};

// A stream of Certifications named <prefix><n>, `concurrency` in flight at a time, each on a free
// slice of nodes among [first_slice, first_slice + concurrency), each deleted once it finishes.
struct CertificationStream {
  std::string prefix = "lat-";
  int first_slice = 0;
  int concurrency = 1;
  int count = 0;  // Certifications in all
  Clock::time_point deadline;
  // Ends the stream early: no Certification is created after it; the ones in flight are waited
  // for up to `drain` longer (a manager that fell behind must not hold the bench for hours).
  std::stop_token stop{};
  std::chrono::seconds drain{120};
};

// Runs `stream`; returns how many finished by its deadline (a warning names the manager's log
// when not all did).
int run_certifications(const Settings& settings, k8s::RestClient& client, Recorder& recorder,
                       int node_count, const CertificationStream& stream,
                       const std::string& manager_log);

// Per Succeeded Certification, in ms: its last TrainJob to complete, that TrainJob's Job, the
// Workflow, itself.
struct ChainLatencies {
  std::vector<double> total, to_job, to_workflow, to_certification, trainjobs_per_cert;
  std::vector<std::pair<Clock::time_point, Clock::time_point>>
      chains;  // last TrainJob Complete, Succeeded
  int failed = 0;
  int unfinished = 0;  // not terminal (yet)
  int incomplete = 0;
};

ChainLatencies chain_latencies(SeenByKind& seen);

// One row: median, p90, p99, max and min of `v`, in ms.
void print_row(std::string_view what, const std::vector<double>& v);
// The header of print_row's columns.
void print_row_header();

void print_latencies(const ChainLatencies& latencies);

}  // namespace nvcre::bench
