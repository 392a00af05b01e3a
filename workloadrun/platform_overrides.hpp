#pragma once
// WorkloadRun platform overrides: the CSP/GPU-architecture overrides a
// WorkloadRun gets automatically, rendered from the catalog fragment
// `_lib/overrides/workloadrun.yaml` with the same directive engine and `_lib` fragments the catalog
// entries use, then post-processed so the user's own env wins.
#include <cstdint>
#include <string>
#include <vector>

#include "api/common_types.hpp"
#include "api/workflow.hpp"

namespace nvcre::workloadrun {

// Template data (OverrideConfig); names mirror the catalog's parameters.
struct OverrideConfig {
  std::string entryName;
  std::int32_t nodesPerJob = 1;
  std::int32_t gpusPerNode = 0;
  std::int32_t mlnxPerNode = 0;
  std::string nicResourceName;
  bool enableMNNVL = false;
  std::string frameworkType;         // torch | mpi | exec
  std::string testScale;             // intra-node | intra-rack | full-scale (keeps strictDomain)
  std::vector<api::EnvVar> userEnv;  // only for the user-env precedence pass; never rendered
  std::string tcpxoPluginVersion;    // GCP H100: "" = the minimum release's images
  std::vector<std::string> gkeTcpxoNetworks;  // GCP H100: empty = gpu-nic0..7
};

// An OverrideSpec plus the two build-time-only parts, never stored in the API.
struct WorkloadRunOverride {
  api::OverrideSpec spec;
  std::vector<std::string> preCommand;  // shell lines run before the trainer command
  std::vector<std::string> mpiArgs;     // mpirun arguments prepended for the MPI framework
};

// BuildOverrides: render, parse (a `jobTemplatePatch` given as a JSON string is parsed),
// then replace — never add — the values of env names the user set in: each override's trainer env,
// every TrainingRuntime dependency container's env, and `-x NAME[=...]` operands of mpiArgs (as
// NAME=VALUE, or bare NAME for valueFrom). Throws std::runtime_error "platform overrides: ...".
std::vector<WorkloadRunOverride> build_platform_overrides(const OverrideConfig& config);

}  // namespace nvcre::workloadrun
