#pragma once
// The command-line surface of the cluster-driving commands: `certification run` and `workloadrun
// run | status | report | cancel`. Kept out of main.cpp so the command tree there stays a list:
// main registers them with two calls and hands the parsed result to dispatch_run_commands().
#include "cli/command.hpp"
#include "cli/run_command.hpp"
#include "cli/workloadrun_live_commands.hpp"

#include <iosfwd>
#include <optional>

namespace nvcre::cli {

struct RunCommands {
  Command<CertificationRunOptions> certification_run;
  Command<WorkloadRunRunOptions> workloadrun_run;
  Command<WorkloadRunLookupOptions> workloadrun_status;
  Command<WorkloadRunLookupOptions> workloadrun_report;
  Command<WorkloadRunCancelOptions> workloadrun_cancel;
  bool enable_checkpoint = false;
  bool enable_mnnvl = false;
  CLI::Option* enable_checkpoint_flag = nullptr;
  CLI::Option* enable_mnnvl_flag = nullptr;
};

void add_certification_run_command(CLI::App& certification_cmd, RunCommands& commands);
void add_workloadrun_live_commands(CLI::App& workloadrun_cmd, RunCommands& commands);

// The exit code when one of these commands was selected, nullopt otherwise.
std::optional<int> dispatch_run_commands(RunCommands& commands, std::ostream& out,
                                         std::ostream& err);

}  // namespace nvcre::cli
