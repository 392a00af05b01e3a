#pragma once
// `nvcrectl workloadrun render`: offline, through the same build path as the WorkloadRun
// controller (workloadrun/build.hpp), resolved against one synthetic node.
#include "api/workloadrun.hpp"
#include "cli/connection_flags.hpp"

#include <iosfwd>
#include <string>

namespace nvcre::cli {

struct WorkloadRunRenderOptions {
  std::string file;
  std::string platform;         // --platform: pretend the nodes are on this platform
  std::string gpu_arch;         // --gpu-arch: wins over the nodeSelector's product label
  std::string output = "yaml";  // yaml | json (one object)
  bool dry_run = false;         // --dry-run: against the cluster's nodes (cli/render_dry_run.hpp)
  ConnectionFlags connection;   // --dry-run only
};

// --platform and --output checked, the file read (kind WorkloadRun); namespace "default" when
// the file has none.
api::WorkloadRun load_workloadrun_for_render(const WorkloadRunRenderOptions& options);

// Writes the rendered Workflow to `out`; throws std::runtime_error / std::invalid_argument with
// the reference CLI's messages (main prints "Error: <message>" and exits 1).
void render_workloadrun(const WorkloadRunRenderOptions& options, std::ostream& out);

// The WorkloadRun in a YAML or JSON file; throws std::runtime_error "reading <f>: ...",
// "parsing WorkloadRun: ..." or `expected kind WorkloadRun, got "<k>"`.
api::WorkloadRun read_workloadrun(const std::string& path);

}  // namespace nvcre::cli
