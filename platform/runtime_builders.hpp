#pragma once
// TrainingRuntime builders for WorkloadRun: the
// runtime a WorkloadRun's TrainJob references, built as raw JSON and returned as a Workflow
// dependency. Gang scheduling is written at build time with the same fields and the same KAI
// launcher policy the post-resolve rewrite uses.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/workflow.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::platform {

struct RuntimeConfig {
  std::string entryName;  // WorkloadRun name: `<entryName>-runtime`, label app
  std::string image;
  std::int32_t nodesPerJob = 1;              // torch mlPolicy.numNodes
  std::int32_t gpusPerNode = 0;              // numProcPerNode and the nvidia.com/gpu request
  std::vector<api::EnvVar> env;              // merged env (base NCCL + user), on every container
  std::vector<boost::json::object> volumes;  // core Volume; torch/exec only
  std::vector<boost::json::object> volumeMounts;       // core VolumeMount; torch/exec only
  std::vector<boost::json::object> initContainers;     // core Container; torch/exec only
  std::optional<api::ResourceRequirements> resources;  // worker resources; see worker_resources
  std::vector<api::LocalObjectReference> imagePullSecrets;  // carried by the job template, not here
  std::string gangSchedulerName;                            // "" = no gang scheduler
  std::string gangSchedulerQueue;                           // "" = default-queue
  std::string gangSchedulerQueueLabelKey;                   // "" = kai.scheduler/queue
};
BOOST_DESCRIBE_STRUCT(RuntimeConfig, (),
                      (entryName, image, nodesPerJob, gpusPerNode, env, volumes, volumeMounts,
                       initContainers, resources, imagePullSecrets, gangSchedulerName,
                       gangSchedulerQueue, gangSchedulerQueueLabelKey))

inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kTrainerApiVersion = "trainer.kubeflow.org/v1alpha1";

// The worker's resources. No block: the GPU count as limit and request ("<G>"), nothing else.
// A user block is returned as given when G <= 0 or when it names nvidia.com/gpu in limits or
// requests (any value, 0 included); otherwise a copy with the GPU count added to both maps.
api::ResourceRequirements worker_resources(
    const std::optional<api::ResourceRequirements>& resources, std::int32_t gpus_per_node);

// Torch: one replicatedJob `node` (labels trainjob-ancestor-step=trainer and app), torch mlPolicy,
// seccomp RuntimeDefault, 30 s grace, /dev/shm from a memory emptyDir plus the user's volumes,
// mounts and init containers.
api::DependencySpec build_torch_runtime(const RuntimeConfig& config);

// MPI: OpenMPI mlPolicy (numNodes 1, workers scale through the JobSet), workers `node` running
// sshd (IPC_LOCK, readiness on TCP port 22) and a `launcher` that sets up SSH keys and is
// gated on worker readiness — except under kai-scheduler, where the gate is replaced by the
// wait-for-workers script in its init container. User volumes/mounts/init containers are not used.
api::DependencySpec build_mpi_runtime(const RuntimeConfig& config);

// Exec: the torch shape; the command travels in the job template's trainer.
api::DependencySpec build_exec_runtime(const RuntimeConfig& config);

}  // namespace nvcre::platform
