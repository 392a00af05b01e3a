#pragma once
// `nvcrectl certification run`: creates a Certification from a file or from --category flags
// (with its namespace and registry pull secret when needed), optionally waits for the verdict
// while printing progress on stderr, prints the report (stdout when the wait succeeded, stderr
// otherwise), writes --results-file / --junit-file, and with --cleanup deletes what it created on
// every way out: success, failure, timeout, error and SIGINT/SIGTERM.
#include "cli/connection_flags.hpp"
#include "cli/run_plan.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace nvcre::cli {

struct CertificationRunOptions {
  std::string cert_file;
  std::vector<std::string> categories;
  std::string name;  // category mode; "" = nvcrectl-<timestamp>
  bool wait = false;
  bool cleanup = false;
  bool setup = false;                  // `setup init --auto-approve` first; reset by --cleanup
  std::string image;                   // --setup: the manager image
  std::string controller_pull_secret;  // --setup: registry token for the manager image
  std::string archive_to;              // archive-destination annotation
  std::string timeout;                 // Go duration; "" = derived from the categories
  CategoryFlags category;
  RegistryFlags registry;
  std::string results_file;
  std::string junit_file;
  ConnectionFlags connection;  // -n "" = the file's namespace, else nvcrectl-<timestamp>
  bool live = false;           // stderr is a terminal: the live progress view
};

struct WaitResult;

// The report after the wait: printed (stdout after a success, else stderr), written to the
// --results-file / --junit-file, and after a timeout what became of the Certification. Returns
// false when the JUnit file could not be written (that fails the command; a results file that
// cannot be written only warns, as NVCRE's run does).
bool report_after_wait(const CertificationRunOptions& options, k8s::RestClient& client,
                       const std::string& ns, const std::string& name, const WaitResult& wait,
                       std::ostream& out, std::ostream& err);

// Runs the command; returns the exit code. Throws std::invalid_argument / std::runtime_error for
// errors found before anything was created (main prints "Error: <message>").
int run_certification_run(const CertificationRunOptions& options, std::ostream& out,
                          std::ostream& err);

}  // namespace nvcre::cli
