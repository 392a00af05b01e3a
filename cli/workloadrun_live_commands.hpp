#pragma once
// `nvcrectl workloadrun run | status | report | cancel` against a live cluster.
//   run <file>      creates the WorkloadRun (namespace and pull secret as needed); with --wait
//                   polls it to its verdict with `[watch]` lines and prints the report on stderr;
//                   --cleanup deletes what it created on every way out.
//   status <name>   one word (Pending, InProgress, Succeeded, Failed) or -o json; exit 0 unless
//                   the lookup fails.
//   report <name>   the report (one category workloadrun/<name>); exit 1 while running or failed.
//   cancel <name>.. deletes each (the Workflow's finalizer cascades); a missing one is only noted.
#include "cli/connection_flags.hpp"
#include "cli/run_plan.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <iosfwd>
#include <string>
#include <vector>

namespace nvcre::cli {

struct WorkloadRunRunOptions {
  std::string file;
  bool wait = false;
  bool cleanup = false;
  std::string timeout = "30m";
  RegistryFlags registry;
  std::string results_file;
  std::string name;       // overrides metadata.name
  std::string node_list;  // comma list -> target.nodeNames (numNodes clamped down to it)
  std::string test_scale;
  std::string topology_domain;  // one topology domain: an In match expression, numNodes = its size
  std::string topology_key;     // the label naming the domain (required with --topology-domain)
  ConnectionFlags connection;   // -n, else the file's namespace, else "default"
};

struct WorkloadRunLookupOptions {
  std::string name;
  std::string output;  // status: "" (one word) | json; report: text | json
  std::string results_file;
  ConnectionFlags connection;
};

struct WorkloadRunCancelOptions {
  std::vector<std::string> names;
  ConnectionFlags connection;
};

int run_workloadrun_run(const WorkloadRunRunOptions& options, std::ostream& out, std::ostream& err);
int run_workloadrun_status(const WorkloadRunLookupOptions& options, std::ostream& out,
                           std::ostream& err);
int run_workloadrun_report(const WorkloadRunLookupOptions& options, std::ostream& out,
                           std::ostream& err);
int run_workloadrun_cancel(const WorkloadRunCancelOptions& options, std::ostream& out,
                           std::ostream& err);

// Pure parts, for tests.
// "Succeeded" / "Failed" / "InProgress" (the first True of those conditions, in that order of
// finality), "Pending" before the controller set any.
std::string workloadrun_phase(const boost::json::value& run);
// `[watch] <name>: <Phase> (<elapsed>) — <condition message>`, or the waiting line.
std::string workloadrun_watch_line(const boost::json::value& run, const std::string& name,
                                   std::chrono::seconds elapsed);
// --name, --node-list, --test-scale and --topology-domain/--topology-key applied to the WorkloadRun
// object. Throws std::invalid_argument for an unknown --test-scale.
void apply_workloadrun_flags(boost::json::value& run, const WorkloadRunRunOptions& options);

}  // namespace nvcre::cli
