#include "platform/runtime_builders.hpp"

#include "platform/gang_scheduling.hpp"
#include "platform/mpi_scripts.hpp"

namespace nvcre::platform {
namespace json = boost::json;

namespace {

constexpr std::string_view kFrameworkLabel = "trainer.kubeflow.org/framework";
constexpr std::string_view kAncestorStepLabel = "trainer.kubeflow.org/trainjob-ancestor-step";
constexpr std::string_view kShmVolume = "dshm";

std::optional<api::GangSchedulerSpec> gang_of(const RuntimeConfig& config) {
  return resolve_gang_scheduler(api::GangSchedulerSpec{
      config.gangSchedulerName, config.gangSchedulerQueue, config.gangSchedulerQueueLabelKey});
}

json::object shm_volume() {
  return {{"name", kShmVolume}, {"emptyDir", json::object{{"medium", "Memory"}}}};
}

json::object shm_mount() { return {{"name", kShmVolume}, {"mountPath", "/dev/shm"}}; }

json::object mount(std::string_view name, std::string_view path, bool read_only) {
  json::object object{{"name", name}, {"mountPath", path}};
  if (read_only) object["readOnly"] = true;
  return object;
}

// A container's leading fields; `env` is left out when there is none rather than written as null.
json::object container(std::string_view name, const std::string& image,
                       const std::vector<api::EnvVar>& env) {
  json::object object{{"name", name}, {"image", image}};
  if (!env.empty()) object["env"] = api::encode(env);
  return object;
}

json::array objects(const std::vector<json::object>& items) {
  json::array array;
  for (const auto& item : items) array.push_back(item);
  return array;
}

// The job- and pod-template labels of one replicated job, with the queue label when gang is on.
json::object job_labels(json::object labels, const std::optional<api::GangSchedulerSpec>& gang) {
  if (gang) labels[gang->queueLabelKey] = gang->queue;
  return labels;
}

// template: {metadata?, spec: {template: {metadata?, spec: pod_spec}}} of a replicated job.
json::object job_template(json::object labels, json::object pod_spec,
                          const std::optional<api::GangSchedulerSpec>& gang) {
  json::object pod_template;
  if (gang) {
    pod_template["metadata"] =
        json::object{{"labels", json::object{{gang->queueLabelKey, gang->queue}}}};
    pod_spec["schedulerName"] = gang->schedulerName;
  }
  pod_template["spec"] = std::move(pod_spec);
  json::object result;
  labels = job_labels(std::move(labels), gang);
  if (!labels.empty()) result["metadata"] = json::object{{"labels", std::move(labels)}};
  result["spec"] = json::object{{"template", std::move(pod_template)}};
  return result;
}

json::object runtime_object(const RuntimeConfig& config, std::string_view framework,
                            json::object spec) {
  return {
      {"apiVersion", kTrainerApiVersion},
      {"kind", kTrainingRuntimeKind},
      {"metadata", json::object{{"name", config.entryName + "-runtime"},
                                {"labels", json::object{{kFrameworkLabel, framework},
                                                        {"app", config.entryName}}}}},
      {"spec", std::move(spec)},
  };
}

api::DependencySpec dependency(json::object resource) {
  api::DependencySpec spec;
  spec.resource = std::move(resource);
  return spec;
}

json::object mpi_worker_job(const RuntimeConfig& config,
                            const std::optional<api::GangSchedulerSpec>& gang) {
  json::object worker = container(mpi::kWorkerJob, config.image, config.env);
  worker["command"] = json::array{"sh", "-c"};
  worker["args"] = json::array{json::string(mpi::worker_sshd_script())};
  worker["resources"] = api::encode(worker_resources(config.resources, config.gpusPerNode));
  // IPC_LOCK lets NCCL pin memory for RDMA; readiness is sshd's port accepting connections.
  worker["securityContext"] =
      json::object{{"capabilities", json::object{{"add", json::array{"IPC_LOCK"}}}}};
  worker["readinessProbe"] = json::object{
      {"tcpSocket", json::object{{"port", 22}}},
      {"initialDelaySeconds", 5},
  };
  worker["volumeMounts"] =
      json::array{mount(mpi::kSshAuthVolume, mpi::kSshAuthMountPath, true), shm_mount()};
  json::object pod_spec{
      {"containers", json::array{std::move(worker)}},
      {"restartPolicy", "OnFailure"},
      {"volumes", json::array{shm_volume()}},
  };
  json::object job{{"name", mpi::kWorkerJob}};
  job["template"] = job_template({}, std::move(pod_spec), gang);
  return job;
}

json::object mpi_launcher_job(const RuntimeConfig& config,
                              const std::optional<api::GangSchedulerSpec>& gang) {
  const bool kai = gang && gang->schedulerName == kKaiSchedulerName;
  std::string script = mpi::fix_ssh_permissions_script();
  json::array init_mounts{mount(mpi::kSshAuthVolume, mpi::kSshAuthMountPath, true),
                          mount(mpi::kSshKeysVolume, mpi::kSshKeysMountPath, false)};
  if (kai) {
    script += mpi::wait_for_workers_script();
    init_mounts.push_back(mount(mpi::kHostfileVolume, mpi::kHostfileDir, true));
  }
  json::object init{{"name", mpi::kFixSshPermissionsContainer},
                    {"image", config.image},
                    {"command", json::array{"sh", "-c"}},
                    {"args", json::array{json::string(script)}},
                    {"volumeMounts", std::move(init_mounts)}};

  json::object launcher = container(mpi::kWorkerJob, config.image, config.env);
  launcher["resources"] = json::object{{"limits", json::object{{"cpu", "2"}, {"memory", "1Gi"}}}};
  launcher["volumeMounts"] = json::array{mount(mpi::kSshAuthVolume, mpi::kSshAuthMountPath, true),
                                         mount(mpi::kSshKeysVolume, mpi::kSshKeysMountPath, false)};
  json::object pod_spec{
      {"initContainers", json::array{std::move(init)}},
      {"containers", json::array{std::move(launcher)}},
      {"restartPolicy", "OnFailure"},
      {"volumes",
       json::array{json::object{{"name", mpi::kSshKeysVolume}, {"emptyDir", json::object{}}}}},
  };
  json::object job{{"name", mpi::kLauncherJob}};
  // KAI needs every PodGroup sub-group populated at once, so a readiness-gated launcher would
  // block the gang; the init container above does the waiting instead.
  if (!kai) {
    job["dependsOn"] = json::array{json::object{{"name", mpi::kWorkerJob}, {"status", "Ready"}}};
  }
  job["template"] = job_template({{kAncestorStepLabel, "trainer"}}, std::move(pod_spec), gang);
  return job;
}

}  // namespace

api::ResourceRequirements worker_resources(
    const std::optional<api::ResourceRequirements>& resources, std::int32_t gpus_per_node) {
  const api::Quantity gpus(std::to_string(gpus_per_node));
  if (!resources) {
    api::ResourceRequirements defaults;
    defaults.limits.emplace(kGpuResource, gpus);
    defaults.requests.emplace(kGpuResource, gpus);
    return defaults;
  }
  const std::string gpu_key(kGpuResource);
  if (gpus_per_node <= 0 || resources->limits.contains(gpu_key) ||
      resources->requests.contains(gpu_key)) {
    return *resources;
  }
  api::ResourceRequirements with_gpu = *resources;
  with_gpu.limits.emplace(gpu_key, gpus);
  with_gpu.requests.emplace(gpu_key, gpus);
  return with_gpu;
}

api::DependencySpec build_torch_runtime(const RuntimeConfig& config) {
  const auto gang = gang_of(config);
  json::object node = container(mpi::kWorkerJob, config.image, config.env);
  node["resources"] = api::encode(worker_resources(config.resources, config.gpusPerNode));
  json::array mounts{shm_mount()};
  for (const auto& extra : config.volumeMounts) mounts.push_back(extra);
  node["volumeMounts"] = std::move(mounts);
  json::array volumes{shm_volume()};
  for (const auto& extra : config.volumes) volumes.push_back(extra);

  json::object pod_spec{
      {"terminationGracePeriodSeconds", 30},
      {"securityContext",
       json::object{{"seccompProfile", json::object{{"type", "RuntimeDefault"}}}}},
  };
  if (!config.initContainers.empty()) pod_spec["initContainers"] = objects(config.initContainers);
  pod_spec["containers"] = json::array{std::move(node)};
  pod_spec["volumes"] = std::move(volumes);

  json::object job{{"name", mpi::kWorkerJob}};
  job["template"] = job_template({{kAncestorStepLabel, "trainer"}, {"app", config.entryName}},
                                 std::move(pod_spec), gang);
  json::object spec{
      {"mlPolicy", json::object{{"numNodes", config.nodesPerJob},
                                {"torch", json::object{{"numProcPerNode", config.gpusPerNode}}}}},
      {"template",
       json::object{{"spec", json::object{{"replicatedJobs", json::array{std::move(job)}}}}}},
  };
  return dependency(runtime_object(config, "torch", std::move(spec)));
}

api::DependencySpec build_exec_runtime(const RuntimeConfig& config) {
  return build_torch_runtime(config);
}

api::DependencySpec build_mpi_runtime(const RuntimeConfig& config) {
  const auto gang = gang_of(config);
  json::object spec{
      {"mlPolicy",
       json::object{{"numNodes", 1},
                    {"mpi", json::object{{"mpiImplementation", "OpenMPI"},
                                         {"numProcPerNode", config.gpusPerNode},
                                         {"sshAuthMountPath", mpi::kSshAuthMountPath}}}}},
      {"template",
       json::object{{"spec",
                     json::object{
                         {"network", json::object{{"publishNotReadyAddresses", true}}},
                         {"replicatedJobs", json::array{mpi_worker_job(config, gang),
                                                        mpi_launcher_job(config, gang)}},
                         {"successPolicy",
                          json::object{{"operator", "All"},
                                       {"targetReplicatedJobs", json::array{"launcher"}}}},
                     }}}},
  };
  return dependency(runtime_object(config, "mpi", std::move(spec)));
}

}  // namespace nvcre::platform
