#pragma once
// The Job a Workflow creates for one group: its name, placement
// (node affinity and tolerations written into the TrainJob's controller runtimePatch), size, node
// health monitor, labels, annotations and controller owner reference. The Job controller consumes
// exactly this shape (api/job.hpp).
#include "api/labels.hpp"
#include "api/job.hpp"
#include "api/workflow.hpp"
#include "workflow/workflow_document.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::workflow {

using api::kGroupLabel;
using api::kGroupNodesAnnotation;
using api::kManagedByLabel;
using api::kManagedByValue;

// `<wf>-job` when not diagnose, at most one iteration and at most one group; else
// `<wf>-<group>-iter-<n>`; truncated to 35.
std::string group_job_name(std::string_view workflow_name, bool diagnose, bool multiple_iterations,
                           std::int64_t total_groups, std::string_view group,
                           std::int64_t iteration);

// The template spec with validation.performance thresholds / measurementTimeout copied in.
api::JobSpec job_spec_from_template(const api::WorkflowSpec& spec);

// Required node affinity, one NodeSelectorTerm: hostname In [hostnames], each nodeSelector pair
// (keys sorted), the target's matchExpressions, gpu.product In [gpu_products]; exact duplicates
// dropped. Null when there is nothing to require.
boost::json::value node_affinity_for(const std::vector<std::string>& hostnames,
                                     const std::optional<api::TargetSpec>& target,
                                     const std::vector<std::string>& gpu_products);

// Taint selectors become tolerations (no value: Exists, else Equal; effect copied) for every
// workload; otherwise only MPI workloads (a `launcher` runtime patch) get one: Pinned a blanket
// Exists, Unpinned the GPU and arm64 NoSchedule taints. Empty: none.
boost::json::array tolerations_for(const std::optional<api::TargetSpec>& target, bool has_launcher,
                                   bool unpinned);

struct GroupJobInput {
  const api::Workflow& workflow;  // name, namespace, uid
  const api::WorkflowSpec& spec;  // effective spec (overrides applied)
  const WorkflowExtras& extras;   // placement, recorded gpu products
  const api::GroupStatus& group;
  api::JobSpec job_spec;  // the template spec with dependency references renamed
  std::string job_name;
};

// Throws trainjob::AdapterError when the template has no trainJob workload.
api::Job build_group_job(const GroupJobInput& input);

// {apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true} for the Workflow.
boost::json::object workflow_owner_reference(const api::Workflow& workflow, bool controller);

}  // namespace nvcre::workflow
