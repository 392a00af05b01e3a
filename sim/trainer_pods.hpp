#pragma once
// The pure half of kube-sim's simulated Kubeflow Trainer (sim/trainer.hpp): what pods a TrainJob
// gets (the runtime's replicated jobs with the TrainJob's runtimePatches / podTemplateOverrides
// folded in), which node each goes to (nodeSelector, required node affinity, taints, GPU
// capacity: sim/trainer_scheduler.hpp), and the Pod objects and pod statuses along the way.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim::trainer {

inline constexpr std::string_view kJobSetNameLabel = "jobset.sigs.k8s.io/jobset-name";
inline constexpr std::string_view kReplicatedJobNameLabel = "jobset.sigs.k8s.io/replicatedjob-name";
inline constexpr std::string_view kCompletionIndexLabel =
    "batch.kubernetes.io/job-completion-index";
inline constexpr std::string_view kLauncherJob = "launcher";
inline constexpr std::string_view kWorkerJob = "node";

// One replicated job as the Trainer would render it into the JobSet.
struct ReplicatedJobPlan {
  std::string name;
  int pods = 1;                      // `node`: numNodes; others: replicas x parallelism
  boost::json::object pod_template;  // effective PodTemplateSpec {metadata, spec}
};

// trainer.numNodes, else the runtime's mlPolicy.numNodes, else 1.
int num_nodes(const boost::json::object& train_job_spec, const boost::json::object& runtime_spec);

// The runtime's replicated jobs in order, with the TrainJob's runtimePatches (same-named
// replicated jobs, later patches winning, named lists merged by name) and podTemplateOverrides
// applied, and spec.trainer's image/command/args/env on the trainer step's `node` container.
std::vector<ReplicatedJobPlan> plan_replicated_jobs(const boost::json::object& train_job_spec,
                                                    const boost::json::object& runtime_spec);

struct PodIdentity {
  std::string train_job;
  std::string ns;
  std::string uid;  // the TrainJob's: owner reference and the name suffix seed
  int index = 0;    // completion index within the replicated job
};

// A JobSet-style pod: name <trainjob>-<rjob>-0-<index>-<suffix>, JobSet/Job labels on top of the
// template's, controller owner = the TrainJob (kube-sim serves no Job or JobSet kinds).
boost::json::value build_pod(const PodIdentity& id, const ReplicatedJobPlan& plan);

// Pod statuses a kubelet would report. `now` is RFC 3339.
boost::json::object pending_status(const std::string& now,
                                   const std::string& unschedulable_message);
boost::json::object running_status(const boost::json::value& pod, const boost::json::value& node,
                                   const std::string& now);
boost::json::object terminated_status(const boost::json::value& pod, const std::string& now,
                                      int exit_code, const std::string& message);

// Small typed reads of pod JSON that never throw.
std::string pod_phase(const boost::json::value& pod);
std::string pod_node(const boost::json::value& pod);
std::string pod_label(const boost::json::value& pod, std::string_view key);

}  // namespace nvcre::sim::trainer
