#pragma once
// The workload adapter for Kubeflow Trainer TrainJobs: builds the
// TrainJob a Job runs, mutates a TrainJob spec only through the controller-owned runtimePatch
// (manager `nvcre.nvidia.com/controller`), and maps TrainJob status to a workload phase.
// Pure functions over raw JSON: the TrainJob spec belongs to another project and is kept exact.
#include "api/labels.hpp"
#include "api/job.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::trainjob {

inline constexpr std::string_view kApiVersion = "trainer.kubeflow.org/v1alpha1";
inline constexpr std::string_view kKind = "TrainJob";
inline constexpr std::string_view kControllerPatchManager = "nvcre.nvidia.com/controller";
using api::kJobLabel;
using api::kManagedByLabel;
using api::kManagedByValue;
inline constexpr std::string_view kDefaultTarget = "node";
inline constexpr std::string_view kLauncherTarget = "launcher";

// A Job whose workload cannot be turned into a TrainJob ("no workload type specified").
class AdapterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Truncate(`<job>-workload`, 44).
std::string workload_name(std::string_view job_name);

// Replicated jobs named by any runtimePatch, in first-seen order; {"node"} when none is named.
std::vector<std::string> patch_targets(const boost::json::object& train_job_spec);
// The first non-launcher target: the workers, which carry the Job pod label.
std::string worker_target(const boost::json::object& train_job_spec);
bool has_launcher_target(const boost::json::object& train_job_spec);

// Mutations, all written into the controller runtimePatch (created on demand).
void add_worker_pod_label(boost::json::object& train_job_spec, std::string_view key,
                          std::string_view value);
// Sets pod `affinity.nodeAffinity` on every target.
void set_node_affinity(boost::json::object& train_job_spec,
                       const boost::json::value& node_affinity);
// Required node affinity `kubernetes.io/hostname In [nodes]` (the group pin).
boost::json::object hostname_node_affinity(const std::vector<std::string>& nodes);
// Appends pod tolerations on every target.
void append_tolerations(boost::json::object& train_job_spec, const boost::json::array& tolerations);
// trainer.numNodes; nodes_required throws AdapterError when it is unset.
void set_num_nodes(boost::json::object& train_job_spec, std::int64_t nodes);
std::int64_t nodes_required(const boost::json::object& train_job_spec);

// The TrainJob for `job`: name workload_name, the Job's namespace, labels managed-by + job label
// (over `workload_labels`, normally spec.workloadMetadata.labels), controller owner = the Job, spec
// = the Job's trainJob with the Job pod label on the worker target. `suspend` / `managedBy` are
// kept as given (Kueue admits the workload by clearing suspend). Throws AdapterError when the Job
// has no trainJob.
boost::json::value build_train_job(const api::Job& job,
                                   const std::map<std::string, std::string>& workload_labels);

enum class WorkloadPhase { Pending, Running, Succeeded, Failed };

struct WorkloadState {
  WorkloadPhase phase = WorkloadPhase::Running;
  std::string reason;   // the deciding TrainJob condition's reason, or "Suspended"
  std::string message;  // its message
};

// Any Failed=True condition -> Failed; else Complete=True -> Succeeded; else spec.suspend ->
// Pending (reason Suspended, the message names managedBy); else Running.
WorkloadState workload_state(const boost::json::value& train_job);

}  // namespace nvcre::trainjob
