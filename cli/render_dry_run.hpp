#pragma once
// `certification render --dry-run` and `workloadrun render --dry-run`: the Workflows are built the
// way the controller builds them, against the cluster's real target nodes (discovered with the
// controller's own rules), their overrides resolved against those nodes as the Workflow
// controller would, and then everything a run creates is sent to the API server as a server-side
// dry-run create (`?dryRun=All`: admitted and validated, never stored): the Workflow, each selected
// dependency, the Job of the first group and its TrainJob. The manifests go to stdout in the same
// form as the offline render; one validation table per Workflow goes to stderr.
#include "api/workflow.hpp"
#include "cli/certification_commands.hpp"
#include "cli/gpu_nodes.hpp"
#include "cli/workloadrun_commands.hpp"
#include "k8s/resource_mapper.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::cli {

inline constexpr std::string_view kDryRunOk = "OK";
inline constexpr std::string_view kDryRunWarn = "WARN";
inline constexpr std::string_view kDryRunInvalid = "INVALID";

struct DryRunRow {
  std::string resource;  // Kind/name
  std::string status;    // OK | WARN | INVALID
  std::string message;
};

struct DryRunTable {
  std::string workflow;
  std::vector<DryRunRow> rows;
};

// "Dry-run validation: <workflow>" and the RESOURCE / STATUS / MESSAGE columns.
std::string format_dry_run_table(const DryRunTable& table);

// What to validate for one Workflow: the object as the controller creates it, and where.
struct DryRunSubject {
  api::Workflow workflow;
  std::string platform;
  std::string gpu_architecture;
  std::string ns;
  std::vector<api::AppliedOverride> applied;  // by the build, before node discovery
};

// Resolves the Workflow's remaining overrides against `nodes` (the Workflow controller's step) and
// dry-run creates the Workflow, its selected dependencies, the first group's Job and its TrainJob.
// API rejections become INVALID rows (AlreadyExists, and a workload naming a dependency that is
// not there yet, WARN); a transport failure throws. `rendered` receives the effective Workflow
// (overrides resolved and cleared, render annotations stamped): what stdout shows.
DryRunTable validate_workflow(k8s::RestClient& client, k8s::ResourceMapper& mapper,
                              const DryRunSubject& subject,
                              const std::vector<boost::json::value>& nodes,
                              boost::json::value& rendered);

// The two commands; return the exit code (INVALID rows do not change it: only hard errors do).
int render_certification_dry_run(const RenderOptions& options, std::ostream& out,
                                 std::ostream& err);
int render_workloadrun_dry_run(const WorkloadRunRenderOptions& options, std::ostream& out,
                               std::ostream& err);

}  // namespace nvcre::cli
