#pragma once
// The pure half of Workflow dependencies: which dependencies are
// workflow-scoped and which need a per-Job copy, the order to create them in, the per-Job names and
// the rewritten Job spec, the object to create, and the ownership checks adopt and cleanup rely on.
#include "api/labels.hpp"
#include "api/workflow.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

using api::kWorkflowLabel;
inline constexpr std::string_view kWorkflowUidAnnotation = "nvcre.nvidia.com/workflow-uid";

// Every string value reachable in `value` (object keys excluded), in document order.
std::vector<std::string> collect_strings(const boost::json::value& value);

// RFC 1123-ish resource name: 3-253 chars of [a-z0-9.-], alphanumeric at both ends, at least one
// lowercase letter (so quantities such as "128" never count).
bool is_resource_name(std::string_view text);

std::string dependency_name(const api::DependencySpec& dependency);
std::string dependency_kind(const api::DependencySpec& dependency);

struct ClassifiedDependencies {
  std::vector<api::DependencySpec> workflow_scoped;  // input order
  std::vector<api::DependencySpec> job_scoped;       // input order
};

// Job-scoped: named by a string of the Job spec (workloadMetadata and runtime-patch label /
// annotation maps ignored), or reached from such a dependency through its strings (a dependency
// name, or a resource-name-like string two dependencies share). Kinds starting "Cluster" never are.
ClassifiedDependencies classify_dependencies(const std::vector<api::DependencySpec>& dependencies,
                                             const api::JobSpec& job_spec);

// Topological creation order (A mentions B's name: B first), stable by input position; a cycle
// leaves the rest in input order. Deletion uses the reverse.
std::vector<api::DependencySpec> order_dependencies(std::vector<api::DependencySpec> dependencies);

// "-<wfhash>-job" for a single group, single iteration; else "-<wfhash>-<group>-iter-<n>".
std::string job_dependency_suffix(std::int64_t total_groups, bool multiple_iterations,
                                  std::string_view group, std::int64_t iteration,
                                  std::string_view workflow_name);

// Old name -> per-Job name for every job-scoped dependency name and every resource-name-like string
// shared by two or more of them (a ComputeDomain channel template name, say).
std::map<std::string, std::string> job_dependency_replacements(
    const std::vector<api::DependencySpec>& job_scoped, std::string_view suffix);

// Every string (values and object keys) equal to a replacement key, replaced: the structural form
// of upstream's quoted-string substitution over the JSON text.
boost::json::value rename_strings(const boost::json::value& value,
                                  const std::map<std::string, std::string>& replacements);

// The Job spec with dependency references renamed; workloadMetadata, the label / annotation maps
// of runtime patches and the measurements' LogProfile names are never references to copies, and are
// kept as they were.
api::JobSpec rename_job_spec(const api::JobSpec& spec,
                             const std::map<std::string, std::string>& replacements);

// A Job's job-scoped dependency copies and the spec that references them.
struct PreparedJobDependencies {
  api::JobSpec spec;
  std::vector<api::DependencySpec> effective;  // workflow-scoped + renamed copies (gang validation)
  std::vector<api::DependencySpec> copies;     // renamed, creation order
};

PreparedJobDependencies prepare_job_dependencies(const api::WorkflowSpec& spec,
                                                 const api::JobSpec& job_spec,
                                                 std::string_view workflow_name,
                                                 std::int64_t total_groups, std::string_view group,
                                                 std::int64_t iteration);

// Cluster-scoped kinds we know of (no REST mapper in a pure function; unknown kinds are namespaced,
// as upstream falls back to when discovery cannot resolve a kind).
bool is_cluster_scoped_kind(std::string_view kind);

// The object to create for a dependency: namespace defaulted (namespaced kinds), the tracking label
// and workflow-uid annotation added, and `owner` appended to ownerReferences (namespaced kinds
// only).
boost::json::object dependency_object(const boost::json::object& resource,
                                      std::string_view workflow_namespace,
                                      std::string_view workflow_name, std::string_view workflow_uid,
                                      const std::optional<boost::json::object>& owner);

// Adoption check: an owner reference with the Workflow's UID, or the workflow-uid annotation.
bool owned_by_workflow(const boost::json::value& object, std::string_view workflow_uid);
// Cleanup check: the above, or the legacy tracking label naming the Workflow.
bool owned_for_cleanup(const boost::json::value& object, std::string_view workflow_uid,
                       std::string_view workflow_name);

}  // namespace nvcre::workflow
