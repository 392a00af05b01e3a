// The manager benchmark: the real nvcre-manager binary, run as its own process against an
// in-process kube-sim (simulated GPU cluster + Trainer), measured from outside. Two phases, each on
// a fresh cluster and a fresh manager:
//
//   latency: N Certifications (C in flight at a time, each on its own slice of nodes, one category
//            whose nodes are split into several Jobs -> TrainJobs). kube-sim's store, in this
//            process, reports each write as it commits it (Store::set_on_commit); the first
//            write showing a TrainJob, Job, Workflow or Certification terminal is timestamped
//            with one steady clock. No watch of ours sits between a commit and its time, so the
//            figures hold only the manager's path (its watches, reconciles and writes) and
//            kube-sim's handling of its requests. Reported: the time from
//            the last TrainJob of a Certification turning Complete to the Certification turning
//            Succeeded (median/p90/p99/max), and its breakdown TrainJob -> Job -> Workflow ->
//            Certification; then the same latency by how many other Certifications' completions
//            overlapped it (the runs' Certifications drift into or out of lockstep, finishing in
//            the same Trainer pass, and that sets the tail more than anything else).
//   throughput: N Certifications created at once on a Trainer with a near-zero step (20 ms unless
//            --trainer-step-ms), unthrottled (--qps -1 unless set after --); Certifications per
//            second to verdict, manager CPU, kube-sim's CPU (the bench process) and the manager's
//            requests per Certification by kind and verb. Then, with the manager stopped,
//            kube-sim's raw floor for that request mix: the same number of requests of each verb
//            replayed as ConfigMap requests (2 KiB objects) from --floor-clients threads; the
//            figure is the ratio of the two rates, not either one.
//   isolation (not part of "all"): the throughput run in --isolation-rounds alternating pairs on
//            fresh clusters, clean and beside two faulty Certifications: one whose reconcile
//            throws on every attempt (nvcre-manager --fault-reconcile-throw) and one whose
//            Workflow's writes each wait 500 ms (a kube-sim fault-plan latency rule for that
//            name). Reported: each run, the faults' evidence (ReconcileError events, delayed
//            writes) and the ratio of the median throughputs of the others (target >= 0.95).
//   rss:     the manager synced with the cluster's Nodes and nothing else (idle baseline), then
//            M Certifications created and left in flight (the Trainer's step is so long that no
//            TrainJob ever finishes). Once the object counts are stable and the manager is idle:
//            its VmRSS / VmHWM (/proc/<pid>/status), and the summed serialized size of every object
//            of the kinds it watches (nvcre_watches(), same label selectors) as the API returns
//            them. Reported: growth over idle, per Certification, and growth / JSON bytes; also
//            how many pods the Trainer bound (every Certification fanned out, or not), and the
//            bytes the cache keeps of those objects after its transform (k8s::trim_for_cache).
//   fleet (not part of "all"): fleet size, 10,000 nodes (aws:h100:10000) and M=2000
//            Certifications in flight (their nodes stalled: they run until deleted) beside a stream
//            of short ones (C at a time): the manager's start-up sync time and idle RSS, the rss
//            phase's figures once the M are settled, then --relists forced relists of every watch
//            (kube-sim's DELETE /sim/watches: every resume gets 410) while the stream runs: each
//            relist's time until every watched kind relisted (nvcre_watch_restarts_total), the
//            manager's RSS peak during it, and the stream's completion latency overlapping a relist
//            beside before and after (manager_bench_fleet.cpp).
//
// Usage: nvcre_manager_bench [--quick] [--phase all|latency|throughput|isolation|rss|fleet]
// [--certifications N] [--relists R]
//          [--concurrency C] [--lockstep] [--in-flight M] [--cluster P:G:NODES] [--nodes-per-cert
//          K]
//          [--nodes-per-job J] [--gpus-per-node G] [--trainer-step-ms S] [--manager PATH]
//          [-- MANAGER-ARG...]   (--help lists them)
//   defaults: N=200, C=4, M=1000 (fleet 2000), K=4, J=2, S=500, R=3; --quick: N=4, M=20 (fleet
//   8 on aws:h100:64).
//   latency: aws:h100:64 and the catalog's gpusPerNode (the whole node).
//   rss:     G=1 (eight Certifications share an H100 node) on aws:h100 with just enough nodes for
//            all M*K pods to be bound at once (at least 64; 500 for M=1000), so every Certification
//            really fans out: at the catalog's 8 GPUs per pod only 16 of them fit on 64 nodes and
//            the rest wait Unschedulable, retried by kube-sim's Trainer on every pass, which then
//            limits how far the others get before the settle deadline.
// The latency phase runs the manager with its default flags (no client-side rate limit; pass
// -- --qps 20 --burst 30 for a token bucket); the rss phase passes --qps -1 unless the arguments
// after -- set --qps: what is cached does not depend on how fast it arrived. The latency phase
// deletes each finished Certification (kube-sim then holds only what is in flight). By default it
// starts the next Certification as soon as one finishes, so completions drift between staggered and
// lockstep; --lockstep starts C together and the next C only when all are done, so every completion
// overlaps the other C-1: the worst case, reproducible. The manager's stderr goes to
// $TMPDIR/nvcre_manager_bench.<phase>.<pid>.log; its pid is printed so a profiler can attach
// (perf record -g -p PID).
// Requests per Certification come from the manager's own nvcre_api_requests_total (by kind and
// verb); the latency phase counts them once every deleted Certification's cascade is over, so they
// cover each Certification's whole life.
// The phases live in manager_bench_latency.cpp, manager_bench_throughput.cpp,
// manager_bench_rss.cpp and manager_bench_fleet.cpp, the manager process in
// manager_bench_process.cpp.
#include "bench/manager_bench.hpp"
#include "bench/manager_bench_process.hpp"

#include <CLI/CLI.hpp>

#include <signal.h>

#include <cstdio>
#include <exception>
#include <optional>

int main(int argc, char** argv) {
  using namespace nvcre::bench;
  Settings settings;
  std::optional<int> certifications, in_flight;
  CLI::App app{
      "The manager benchmark: completion latency and cache footprint of nvcre-manager "
      "on kube-sim.\n"
      "Arguments after -- go to nvcre-manager, e.g. -- --qps -1 --log-level debug."};
  app.add_flag("--quick", settings.quick,
               "a short pass: 4 Certifications (latency), 20 in flight (rss)");
  app.add_option("--phase", settings.phase, "which phase to run")
      ->check(CLI::IsMember({"all", "latency", "throughput", "isolation", "rss", "fleet"}));
  app.add_option("--certifications", certifications,
                 "latency, throughput: Certifications in all (default 200)")
      ->check(CLI::PositiveNumber);
  app.add_option("--concurrency", settings.concurrency,
                 "latency: Certifications in flight at a time")
      ->check(CLI::PositiveNumber);
  app.add_flag(
      "--lockstep", settings.lockstep,
      "latency: start --concurrency Certifications together, the next ones when all are done");
  app.add_option("--in-flight", in_flight,
                 "rss, fleet: Certifications left in flight (default 1000, fleet 2000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--cluster", settings.cluster,
                 "simulated cluster PLATFORM:GPU:NODES (default per phase)");
  app.add_option("--nodes-per-cert", settings.nodes_per_cert, "nodes each Certification targets")
      ->check(CLI::PositiveNumber);
  app.add_option("--nodes-per-job", settings.nodes_per_job, "the category's nodesPerJob")
      ->check(CLI::PositiveNumber);
  app.add_option("--gpus-per-node", settings.gpus_per_node,
                 "the category's gpusPerNode (default per phase)")
      ->check(CLI::PositiveNumber);
  auto* step = app.add_option("--trainer-step-ms", settings.trainer_step_ms,
                              "kube-sim Trainer step (default 500, throughput 20)")
                   ->check(CLI::PositiveNumber);
  app.add_option("--floor-clients", settings.floor_clients,
                 "throughput: client threads replaying the request mix for kube-sim's floor")
      ->check(CLI::PositiveNumber);
  app.add_option("--isolation-rounds", settings.isolation_rounds,
                 "isolation: clean / faulty run pairs (the medians are compared)")
      ->check(CLI::PositiveNumber);
  app.add_option("--relists", settings.relists, "fleet: forced relists of every watch")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--manager", settings.manager, "the nvcre-manager binary")
      ->check(CLI::ExistingFile);
  app.add_option("manager-args", settings.manager_args, "arguments for nvcre-manager (after --)");
  CLI11_PARSE(app, argc, argv);
  settings.certifications = certifications.value_or(settings.quick ? 4 : 200);
  settings.in_flight = in_flight.value_or(settings.phase == "fleet" ? (settings.quick ? 8 : 2000)
                                                                    : (settings.quick ? 20 : 1000));
  settings.trainer_step_set = step->count() > 0;
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGINT, stop_manager_and_exit);
  ::signal(SIGTERM, stop_manager_and_exit);
  try {
    if (settings.phase == "all" || settings.phase == "latency") run_latency(settings);
    if (settings.phase == "all" || settings.phase == "throughput") run_throughput(settings);
    if (settings.phase == "all" || settings.phase == "rss") run_rss(settings);
    if (settings.phase == "isolation") run_isolation(settings);
    if (settings.phase == "fleet") run_fleet(settings);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvcre_manager_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
