#pragma once
// `nvcrectl setup init | status | reset`: installs nvcre (the CRDs, the manager with its RBAC and
// the shipped LogProfiles, all compiled into nvcrectl from deploy/) into the cluster the connection
// flags select, reports what is installed, and removes it again. Progress and prompts go to
// `err`, the status report to `out`. What to install and how to judge what is there is
// install/'s pure code; this file does the API calls.
#include "cli/connection_flags.hpp"

#include <chrono>
#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace nvcre::cli {

struct SetupOptions {
  ConnectionFlags connection;
  std::string skip_phases;                     // comma list (install::parse_skip_phases)
  std::string image;                           // init: the manager image ("" keeps deploy/'s)
  std::string image_pull_secret;               // init: registry token for the manager image
  bool auto_approve = false;                   // no prompt
  std::string output = "table";                // status: table | json
  std::chrono::seconds cr_timeout{600};        // reset: graceful deletion of custom resources
  std::chrono::seconds establish_timeout{60};  // init: CRDs Established before LogProfiles
};

struct SetupCommands {
  SetupOptions init, status, reset;
  CLI::App* init_cmd = nullptr;
  CLI::App* status_cmd = nullptr;
  CLI::App* reset_cmd = nullptr;
};

// Registers `setup` and its three subcommands on `app`.
void add_setup_commands(CLI::App& app, SetupCommands& commands);

// The selected setup command's exit code, or -1 when none of them was selected.
int run_setup_command(const SetupCommands& commands, std::istream& in, std::ostream& out,
                      std::ostream& err);

// The docker-registry Secret `setup init --image-pull-secret` creates in the nvcre namespace and
// names in the manager's pod spec.
inline constexpr std::string_view kManagerPullSecret = "nvcre-manager-pull";

int run_setup_init(const SetupOptions& options, std::istream& in, std::ostream& err);
int run_setup_status(const SetupOptions& options, std::ostream& out);
int run_setup_reset(const SetupOptions& options, std::istream& in, std::ostream& err);

}  // namespace nvcre::cli
