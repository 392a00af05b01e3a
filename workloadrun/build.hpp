#pragma once
// Building a WorkloadRun's Workflow: GPU
// defaults, merged env, the runtime dependency of the chosen framework, config / checkpoint
// dependencies, the job template, orchestration, the auto-generated platform overrides (PreCommand
// and MPIArgs folded in) followed by the user's overrides, then the same post-resolve transforms
// as a Certification category. The controller's Workflow carries every override, unfiltered, for
// the Workflow controller to apply; an offline render resolves them in place.
// Pure: the nodes are an input, nothing is read or written.
#include <boost/json/value.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/workflow.hpp"
#include "reconcile/build_request.hpp"
#include "api/workloadrun.hpp"

namespace nvcre::workloadrun {

inline constexpr std::string_view kWorkloadRunLabel = "nvcre.nvidia.com/workload-run";
inline constexpr std::string_view kDefaultTimeoutPerJob = "24h0m0s";  // invalid/empty timeoutPerJob

// The same inputs and events as a Certification category build (offline: overrides resolved and
// cleared; otherwise all kept, unresolved).
using reconcile::BuildEvent;
using reconcile::BuildInput;

struct WorkloadRunBuild {
  api::Workflow workflow;
  std::string platform;
  std::string gpu_architecture;
  std::int32_t gpus_per_node = 0;  // status.resolvedGpusPerNode
  std::vector<api::AppliedOverride> applied_overrides;
  std::vector<BuildEvent> events;  // GPUArchitectureDefaults, NICResourceDetection
};

// Why the run could not be built; `reason` is the WorkloadRun Failed reason (BuildFailed, or
// GangSchedulingConflict from the transforms). what() is "workloadrun <name>: <problem>".
struct BuildError : std::runtime_error {
  BuildError(std::string reason_text, const std::string& message)
      : std::runtime_error(message), reason(std::move(reason_text)) {}
  std::string reason;
};

WorkloadRunBuild build_workloadrun_workflow(const api::WorkloadRun& run, const BuildInput& input);

// Go's %q of one string: double-quoted with Go escapes (\" \\ \n \t \r, \xNN for other control
// bytes); printable UTF-8 kept.
std::string go_quote(std::string_view text);

}  // namespace nvcre::workloadrun
