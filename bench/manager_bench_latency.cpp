// The latency phase: Certifications run to completion, each timed from its last TrainJob turning
// Complete to its own Succeeded, as kube-sim's store commits each write (see manager_bench.cpp).
#include "bench/manager_bench_latency.hpp"
#include "bench/manager_bench_process.hpp"

#include "sim/api_server.hpp"
#include "sim/kube_sim.hpp"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nvcre::bench {
namespace {

using namespace std::chrono_literals;

std::string controller_owner(const json::value& object) {
  const auto& meta = object.at("metadata").as_object();
  const auto* owners = meta.if_contains("ownerReferences");
  if (owners == nullptr || !owners->is_array()) return {};
  for (const auto& owner : owners->as_array()) {
    const auto* controller = owner.as_object().if_contains("controller");
    if (controller != nullptr && controller->is_bool() && controller->as_bool()) {
      return std::string(owner.at("name").as_string());
    }
  }
  return {};
}

const char* chain_kind(std::string_view group, std::string_view resource) {
  static const std::pair<const k8s::ResourceRef*, const char*> kChain[] = {
      {&kTrainJobs, "TrainJob"},
      {&kJobs, "Job"},
      {&kWorkflows, "Workflow"},
      {&kCertifications, "Certification"}};
  for (const auto& [ref, kind] : kChain) {
    if (group == ref->group && resource == ref->resource) return kind;
  }
  return nullptr;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// What the store committed: per object, its controlling owner and when it was first terminal.

void Recorder::observe(const std::string& kind, const json::value& object, Clock::time_point at) {
  std::string name(object.at("metadata").at("name").as_string());
  std::string terminal = terminal_condition(object);
  std::lock_guard lock(mutex_);
  auto& seen = seen_[kind][name];
  if (seen.owner.empty()) seen.owner = controller_owner(object);
  if (!terminal.empty() && !seen.terminal_at) {
    seen.terminal = terminal;
    seen.terminal_at = at;
    if (kind == "Certification") changed_.notify_all();
  }
}

std::string Recorder::wait_for_terminal(const std::vector<std::string>& names,
                                        Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  std::string found;
  changed_.wait_until(lock, deadline, [&] {
    for (const auto& name : names) {
      auto it = seen_["Certification"].find(name);
      if (it != seen_["Certification"].end() && it->second.terminal_at) {
        found = name;
        return true;
      }
    }
    return false;
  });
  return found;
}

SeenByKind Recorder::snapshot() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

CommitObserver::CommitObserver(sim::Store& store, Recorder& recorder) : store_(store) {
  store_.set_on_commit([&recorder](const sim::WatchEvent& event) {
    const auto at = Clock::now();
    if (const char* kind = chain_kind(event.group, event.resource))
      recorder.observe(kind, *event.object, at);
  });
}

// ---------------------------------------------------------------------------------------------
// The run

int run_certifications(const Settings& settings, k8s::RestClient& client, Recorder& recorder,
                       int node_count, const CertificationStream& stream,
                       const std::string& manager_log) {
  std::map<std::string, int> slice_of;  // in-flight Certification -> its node slice
  std::deque<int> free_slices;
  for (int s = 0; s < stream.concurrency; ++s) free_slices.push_back(stream.first_slice + s);
  int created = 0;
  int finished = 0;
  std::optional<Clock::time_point> drain_until;
  for (;;) {
    const bool more = created < stream.count && !stream.stop.stop_requested();
    if (!more && slice_of.empty()) break;
    if (stream.stop.stop_requested() && !drain_until) drain_until = Clock::now() + stream.drain;
    if (drain_until && Clock::now() > *drain_until) {
      std::printf("WARNING: %zu Certifications still in flight %lld s after the stream stopped\n",
                  slice_of.size(), static_cast<long long>(stream.drain.count()));
      break;
    }
    const bool refill =
        more && (!settings.lockstep || static_cast<int>(free_slices.size()) == stream.concurrency);
    while (refill && !free_slices.empty() && created < stream.count) {
      std::string name = stream.prefix + std::to_string(created++);
      int slice = free_slices.front();
      free_slices.pop_front();
      client.create(kCertifications, kNamespace,
                    certification(name, slice_nodes(slice, settings, node_count),
                                  settings.nodes_per_job, settings.gpus_per_node));
      slice_of[name] = slice;
    }
    std::vector<std::string> in_flight;
    for (const auto& [name, slice] : slice_of) in_flight.push_back(name);
    // A second at a time, so that a stop request is seen while nothing finishes.
    auto done = recorder.wait_for_terminal(in_flight, std::min(stream.deadline, Clock::now() + 1s));
    if (done.empty()) {
      if (Clock::now() < stream.deadline) continue;
      std::printf(
          "WARNING: only %d of %d Certifications finished in time; reporting those (see %s)\n",
          finished, stream.count, manager_log.c_str());
      break;
    }
    free_slices.push_back(slice_of[done]);
    slice_of.erase(done);
    // Finished Certifications go (their children by finalizers and garbage collection), so kube-sim
    // holds only what is in flight: its Trainer's passes grow with every stored TrainJob and, kept,
    // made the later Certifications of a run slower than the first (kube-sim pacing, not nvcre).
    client.remove(kCertifications, kNamespace, done);
    ++finished;
  }
  return finished;
}

// ---------------------------------------------------------------------------------------------
// The figures

ChainLatencies chain_latencies(SeenByKind& seen) {
  std::map<std::string, std::vector<std::string>>
      children[3];  // Certification->Workflows, Workflow->Jobs, Job->TrainJobs
  for (const auto& [name, s] : seen["Workflow"]) children[0][s.owner].push_back(name);
  for (const auto& [name, s] : seen["Job"]) children[1][s.owner].push_back(name);
  for (const auto& [name, s] : seen["TrainJob"]) children[2][s.owner].push_back(name);
  ChainLatencies out;
  for (const auto& [cert, s] : seen["Certification"]) {
    if (s.terminal.empty()) {
      ++out.unfinished;
      continue;
    }
    if (s.terminal != "Succeeded") {
      ++out.failed;
      continue;
    }
    std::optional<Clock::time_point> last_trainjob, job_at, workflow_at;
    int trainjobs = 0;
    for (const auto& workflow : children[0][cert]) {
      for (const auto& job : children[1][workflow]) {
        for (const auto& trainjob : children[2][job]) {
          const auto& t = seen["TrainJob"][trainjob];
          ++trainjobs;
          if (t.terminal_at && (!last_trainjob || *t.terminal_at > *last_trainjob)) {
            last_trainjob = t.terminal_at;
            job_at = seen["Job"][job].terminal_at;
            workflow_at = seen["Workflow"][workflow].terminal_at;
          }
        }
      }
    }
    if (!last_trainjob || !job_at || !workflow_at) {
      ++out.incomplete;
      continue;
    }
    out.total.push_back(ms(*s.terminal_at - *last_trainjob));
    out.chains.emplace_back(*last_trainjob, *s.terminal_at);
    out.to_job.push_back(ms(*job_at - *last_trainjob));
    out.to_workflow.push_back(ms(*workflow_at - *job_at));
    out.to_certification.push_back(ms(*s.terminal_at - *workflow_at));
    out.trainjobs_per_cert.push_back(trainjobs);
  }
  return out;
}

void print_row_header() {
  std::printf("%-50s %9s %9s %9s %9s %9s\n", "ms", "median", "p90", "p99", "max", "min");
}

void print_row(std::string_view what, const std::vector<double>& v) {
  std::printf("%-50.*s %9.1f %9.1f %9.1f %9.1f %9.1f\n", static_cast<int>(what.size()), what.data(),
              percentile(v, 50), percentile(v, 90), percentile(v, 99),
              v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()),
              v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()));
}

void print_latencies(const ChainLatencies& latencies) {
  print_row_header();
  std::printf("  (n = %zu Certifications)\n", latencies.total.size());
  print_row("last TrainJob Complete -> Certification Succeeded", latencies.total);
  print_row("  TrainJob Complete -> its Job terminal", latencies.to_job);
  print_row("  Job terminal -> Workflow terminal", latencies.to_workflow);
  print_row("  Workflow terminal -> Certification terminal", latencies.to_certification);
  // Whether the Certifications in flight finished apart or together (in lockstep, every
  // completion shares the manager with the others' completions): the figures differ by ~2x.
  const auto& chains = latencies.chains;
  std::map<int, std::vector<double>> by_overlap;
  for (std::size_t i = 0; i < chains.size(); ++i) {
    int others = 0;
    for (std::size_t j = 0; j < chains.size(); ++j) {
      if (j != i && chains[j].first < chains[i].second && chains[j].second > chains[i].first)
        ++others;
    }
    by_overlap[others].push_back(latencies.total[i]);
  }
  for (const auto& [others, overlapping] : by_overlap) {
    const std::string what = "  overlapping " + std::to_string(others) +
                             " other completion(s): n = " + std::to_string(overlapping.size());
    print_row(what, overlapping);
  }
}

void run_latency(const Settings& settings) {
  const std::string profile = settings.cluster.value_or("aws:h100:64");
  auto cluster = start_cluster(profile, std::chrono::milliseconds(settings.trainer_step_ms));
  const int node_count = cluster->profile().node_count;
  const int slices = node_count / settings.nodes_per_cert;
  const int concurrency = std::min(settings.concurrency, slices);
  Recorder recorder;
  CommitObserver observer(cluster->sim().api().store(), recorder);
  ManagerProcess manager(settings, cluster->sim().url(), "latency");
  std::fprintf(stderr, "latency phase: manager pid %d, log %s\n", manager.pid(),
               manager.log().c_str());
  manager.wait_ready(60s);

  std::printf(
      "\n== latency: %d Certifications, %d in flight%s, cluster %s, %d nodes each, nodesPerJob %d, "
      "trainer step %d ms ==\n",
      settings.certifications, concurrency, settings.lockstep ? " started together" : "",
      profile.c_str(), settings.nodes_per_cert, settings.nodes_per_job, settings.trainer_step_ms);
  print_load();
  auto driver = bench_client(*cluster);
  const auto started = Clock::now();
  // Generous: with --qps 20 (not the default) a Certification's ~60 requests take ~3 s of budget.
  const auto deadline = started + std::chrono::seconds(60 + settings.certifications * 10);
  CertificationStream stream;
  stream.concurrency = concurrency;
  stream.count = settings.certifications;
  stream.deadline = deadline;
  const int finished =
      run_certifications(settings, *driver, recorder, node_count, stream, manager.log());
  const double wall = std::chrono::duration<double>(Clock::now() - started).count();
  const double manager_cpu = manager.cpu_seconds();
  // The last deletions' cascades (finalizers, garbage collection) finish after the last verdict.
  if (!wait_cascade_done(*driver, 60s))
    std::printf("WARNING: objects left in namespace %s after 60 s\n", kNamespace);
  const auto requests = manager.api_requests();
  const auto passes = manager.metric("nvcre_reconcile_total");
  const auto sim_counted = manager_requests(*driver);
  observer.stop();
  auto seen = recorder.snapshot();

  const ChainLatencies latencies = chain_latencies(seen);
  std::printf(
      "finished %d Certifications in %.1f s (%d not Succeeded, %d without a complete chain); "
      "manager CPU %.1f s; %.1f TrainJobs per Certification\n",
      finished, wall, latencies.failed + latencies.unfinished, latencies.incomplete, manager_cpu,
      latencies.trainjobs_per_cert.empty() ? 0.0 : percentile(latencies.trainjobs_per_cert, 50));
  print_requests(requests, sim_counted, finished);
  print_passes(passes, finished);
  print_latencies(latencies);
  print_load();
}

}  // namespace nvcre::bench
