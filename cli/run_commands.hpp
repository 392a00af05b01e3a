#pragma once
// The command-line surface of the cluster-driving commands: `certification run` and `workloadrun
// run | status | report | cancel`. Kept out of main.cpp so the command tree there stays a list:
// main registers them with two calls and hands the parsed result to dispatch_run_commands().
#include "cli/run_command.hpp"
#include "cli/workloadrun_live_commands.hpp"

#include <iosfwd>
#include <optional>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace nvcre::cli {

struct RunCommands {
  CertificationRunOptions certification_run;
  WorkloadRunRunOptions workloadrun_run;
  WorkloadRunLookupOptions workloadrun_status;
  WorkloadRunLookupOptions workloadrun_report;
  WorkloadRunCancelOptions workloadrun_cancel;
  bool enable_checkpoint = false;
  bool enable_mnnvl = false;
  CLI::Option* enable_checkpoint_flag = nullptr;
  CLI::Option* enable_mnnvl_flag = nullptr;
  CLI::App* certification_run_cmd = nullptr;
  CLI::App* workloadrun_run_cmd = nullptr;
  CLI::App* workloadrun_status_cmd = nullptr;
  CLI::App* workloadrun_report_cmd = nullptr;
  CLI::App* workloadrun_cancel_cmd = nullptr;
};

void add_certification_run_command(CLI::App& certification_cmd, RunCommands& commands);
void add_workloadrun_live_commands(CLI::App& workloadrun_cmd, RunCommands& commands);

// The exit code when one of these commands was selected, nullopt otherwise.
std::optional<int> dispatch_run_commands(RunCommands& commands, std::ostream& out,
                                         std::ostream& err);

}  // namespace nvcre::cli
