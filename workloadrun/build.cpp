#include "workloadrun/build.hpp"

#include "api/labels.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

#include "api/codec.hpp"
#include "overrides/spec_transforms.hpp"
#include "k8s/duration.hpp"
#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/nccl_env.hpp"
#include "platform/runtime_builders.hpp"
#include "overrides/overrides.hpp"
#include "workloadrun/platform_overrides.hpp"
#include "workflow/workflow_document.hpp"

namespace nvcre::workloadrun {
namespace json = boost::json;

namespace {

constexpr std::string_view kBuildFailed = "BuildFailed";
constexpr std::string_view kConfigVolume = "config-volume";
constexpr std::string_view kConfigMountPath = "/config";
constexpr std::string_view kRuntimePatchManager = "nvcre.nvidia.com/workloadrun";
using api::kGpuPresentLabel;

struct BuildFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Framework { kTorch, kMpi, kExec };

std::string_view framework_name(Framework framework) {
  switch (framework) {
    case Framework::kTorch:
      return "torch";
    case Framework::kMpi:
      return "mpi";
    case Framework::kExec:
      return "exec";
  }
  return "exec";
}

// The fields the spec needs plus the fields the CRD requires (a file rendered offline never met the
// API server).
Framework select_framework(const api::FrameworkSpec& framework) {
  if (framework.torch) {
    const auto& torch = *framework.torch;
    if (torch.script.empty() == torch.module_.empty()) {
      throw BuildFailure(
          torch.script.empty()
              ? "spec.framework.torch: either script or module must be set"
              : "spec.framework.torch: script and module are mutually exclusive; set only one");
    }
    return Framework::kTorch;
  }
  if (framework.mpi) {
    if (framework.mpi->binary.empty()) {
      throw BuildFailure("spec.framework.mpi.binary is required: set the program mpirun launches");
    }
    if (framework.mpi->mpirunPath.empty()) {
      throw BuildFailure(
          "spec.framework.mpi.mpirunPath is required: set the mpirun path inside the image");
    }
    return Framework::kMpi;
  }
  if (!framework.exec) throw BuildFailure("exec framework selected but spec.framework.exec is nil");
  if (framework.exec->command.empty()) {
    throw BuildFailure(
        "spec.framework.exec.command must name the command to run (at least one item)");
  }
  return Framework::kExec;
}

std::string timeout_per_job(const std::optional<api::WorkloadOrchestration>& orchestration) {
  if (!orchestration || orchestration->timeoutPerJob.empty())
    return std::string(kDefaultTimeoutPerJob);
  auto parsed = k8s::parse_go_duration(orchestration->timeoutPerJob);
  if (!parsed) return std::string(kDefaultTimeoutPerJob);
  return k8s::format_go_duration(*parsed);
}

json::object replicated_job_patch(std::string_view name,
                                  const std::vector<api::LocalObjectReference>& secrets) {
  json::object job{{"name", name}};
  if (!secrets.empty()) {
    job["template"] = json::object{
        {"spec",
         json::object{{"template", json::object{{"spec", json::object{{"imagePullSecrets",
                                                                       api::encode(secrets)}}}}}}}};
  }
  return job;
}

// runtimePatches: image pull secrets on `node`; MPI also lists `launcher` (it runs the same image)
// so later per-Job patches reach it.
json::array runtime_patches(Framework framework,
                            const std::vector<api::LocalObjectReference>& secrets) {
  if (secrets.empty() && framework != Framework::kMpi) return {};
  json::array jobs{replicated_job_patch("node", secrets)};
  if (framework == Framework::kMpi) jobs.push_back(replicated_job_patch("launcher", secrets));
  return json::array{json::object{
      {"manager", kRuntimePatchManager},
      {"trainingRuntimeSpec",
       json::object{{"template",
                     json::object{{"spec", json::object{{"replicatedJobs", std::move(jobs)}}}}}}}}};
}

json::array strings(const std::vector<std::string>& items) {
  json::array array;
  for (const auto& item : items) array.emplace_back(item);
  return array;
}

struct TrainerCommand {
  std::vector<std::string> command;
  std::vector<std::string> args;
};

TrainerCommand trainer_command(Framework framework, const api::FrameworkSpec& spec,
                               std::int32_t gpus_per_node, const std::vector<api::EnvVar>& env) {
  TrainerCommand out;
  switch (framework) {
    case Framework::kTorch: {
      const auto& torch = *spec.torch;
      out.command = {"torchrun"};
      if (!torch.module_.empty()) {
        out.args = {"-m", torch.module_};
      } else {
        out.args = {torch.script};
      }
      out.args.insert(out.args.end(), torch.args.begin(), torch.args.end());
      break;
    }
    case Framework::kMpi: {
      const auto& mpi = *spec.mpi;
      out.command = {"timeout", "3600", mpi.mpirunPath};
      out.args = {"-N",
                  std::to_string(gpus_per_node),
                  "--allow-run-as-root",
                  "--mca",
                  "plm_rsh_args",
                  "-o StrictHostKeyChecking=no -o ConnectionAttempts=10"};
      for (auto& arg : platform::mpi_env_args(env, mpi.mpiArgs)) out.args.push_back(std::move(arg));
      out.args.insert(out.args.end(), mpi.mpiArgs.begin(), mpi.mpiArgs.end());
      out.args.push_back(mpi.binary);
      out.args.insert(out.args.end(), mpi.args.begin(), mpi.args.end());
      break;
    }
    case Framework::kExec:
      out.command = spec.exec->command;
      out.args = spec.exec->args;
      break;
  }
  return out;
}

// After templating: `/bin/bash -c "<preCommands>\nexec <%q-quoted command and args>"`.
void wrap_with_pre_commands(TrainerCommand& trainer, const std::vector<std::string>& pre_commands) {
  if (pre_commands.empty()) return;
  std::string script;
  for (const auto& line : pre_commands) script += line + "\n";
  script += "exec";
  for (const auto& part : trainer.command) script += " " + go_quote(part);
  for (const auto& part : trainer.args) script += " " + go_quote(part);
  trainer.command = {"/bin/bash", "-c"};
  trainer.args = {script};
}

void check_required_fields(const std::string& name, const api::WorkloadRunSpec& spec) {
  if (name.empty()) throw BuildFailure("metadata.name is required");
  if (spec.image.empty())
    throw BuildFailure("spec.image is required: set the container image to run");
  if (spec.numNodes < 1) {
    throw BuildFailure("spec.numNodes must be at least 1 (nodes per job group), got " +
                       std::to_string(spec.numNodes));
  }
}

// Unpinned runs exactly one job; intra-node and intra-rack each ask for one job per node or per
// domain. Checked on the testScale as written, before intra-rack is lowered to strictDomain.
void check_placement_and_scale(const std::string& placement, const std::string& test_scale) {
  if (!workflow::is_unpinned(placement)) return;
  const std::string prefix =
      "orchestration.placement: Unpinned is incompatible with orchestration.testScale \"" +
      test_scale + "\": ";
  if (test_scale == api::test_scale::kIntraNode) {
    throw BuildFailure(prefix +
                       "intra-node runs one job per target node, Unpinned runs exactly one job; "
                       "drop one of the two");
  }
  if (test_scale == api::test_scale::kIntraRack) {
    throw BuildFailure(prefix +
                       "intra-rack runs one job per topology domain, Unpinned runs exactly one "
                       "job; to confine a single unpinned job to one domain, name the domain "
                       "label in target.matchExpressions instead");
  }
}

std::string supported_test_scale(const api::WorkloadRunSpec& spec) {
  const std::string test_scale = spec.orchestration ? spec.orchestration->testScale : std::string();
  if (test_scale == api::test_scale::kDiagnose) {
    throw BuildFailure(
        "spec.orchestration.testScale diagnose is not supported for WorkloadRuns; use "
        "intra-node, intra-rack or full-scale");
  }
  check_placement_and_scale(spec.orchestration ? spec.orchestration->placement : std::string(),
                            test_scale);
  return test_scale;
}

// What the spec and the target nodes settle before any object is built.
struct Settled {
  Framework framework = Framework::kExec;
  std::string test_scale;
  std::int32_t gpus = 0;
  std::int32_t mlnx = 0;
  bool mnnvl = false;
  std::string nic_resource_name;
  std::int32_t nodes_per_job = 1;
  std::vector<api::EnvVar> env;
};

// Detection and hardware defaults; the spec's own values win over the defaults.
// Records the platform, architecture, GPUs per node and their events in `result`. The events are
// about the run they are recorded on, so their text does not name it again (as NVCRE words them).
void settle_hardware(const api::WorkloadRunSpec& spec, const BuildInput& input, Settled& settled,
                     WorkloadRunBuild& result) {
  platform::NodeDefaults defaults = platform::kFallbackNodeDefaults;
  bool default_mnnvl = false;
  if (!input.nodes.empty()) {
    result.platform = platform::detect_platform(input.nodes);
    result.gpu_architecture = input.gpu_architecture.empty()
                                  ? platform::majority_gpu_architecture(input.nodes)
                                  : input.gpu_architecture;
    if (result.gpu_architecture.empty())
      result.gpu_architecture = std::string(platform::kUnknownArchitecture);
    defaults = platform::gpu_defaults(result.gpu_architecture, result.platform);
    default_mnnvl = platform::default_enable_mnnvl(result.gpu_architecture);
  } else {
    result.gpu_architecture = input.gpu_architecture;
  }
  settled.gpus = spec.gpusPerNode.value_or(defaults.gpusPerNode);
  settled.mlnx = spec.mlnxPerNode.value_or(defaults.mlnxPerNode);
  if (auto message =
          platform::gpu_arch_fallback_message(result.gpu_architecture, settled.gpus, settled.mlnx,
                                              platform::kGpuArchFieldHintWorkloadRun))
    result.events.push_back({"Warning", "GPUArchitectureDefaults", *message});
  settled.mnnvl = spec.enableMNNVL.value_or(default_mnnvl);
  auto nic = platform::detect_nic_resource_name(spec.nicResourceName.value_or(""), result.platform,
                                                result.gpu_architecture, settled.mlnx, input.nodes);
  if (!nic.message.empty())
    result.events.push_back({"Normal", "NICResourceDetection", nic.message});
  settled.nic_resource_name = std::move(nic.resourceName);
  result.gpus_per_node = settled.gpus;
}

struct Volumes {
  std::vector<json::object> volumes;
  std::vector<json::object> mounts;
};

// The spec's volumes plus, with a config, the ConfigMap mounted at /config.
Volumes volumes_with_config(const std::string& name, const api::WorkloadRunSpec& spec) {
  Volumes out{spec.volumes, spec.volumeMounts};
  if (!spec.config) return out;
  if (!spec.config->inline_.empty() && spec.config->configMapRef) {
    throw BuildFailure("spec.config: inline and configMapRef are mutually exclusive; set only one");
  }
  const std::string config_map_name =
      spec.config->configMapRef ? spec.config->configMapRef->name : name + "-config";
  out.volumes.push_back(
      json::object{{"name", kConfigVolume},
                   {"configMap", json::object{{"name", config_map_name}, {"defaultMode", 0755}}}});
  out.mounts.push_back(json::object{{"name", kConfigVolume}, {"mountPath", kConfigMountPath}});
  return out;
}

// The TrainingRuntime of the chosen framework.
api::DependencySpec runtime_dependency(const std::string& name, const api::WorkloadRunSpec& spec,
                                       const Settled& settled, Volumes volumes) {
  platform::RuntimeConfig runtime;
  runtime.entryName = name;
  runtime.image = spec.image;
  runtime.nodesPerJob = settled.nodes_per_job;
  runtime.gpusPerNode = settled.gpus;
  runtime.env = settled.env;
  runtime.volumes = std::move(volumes.volumes);
  runtime.volumeMounts = std::move(volumes.mounts);
  runtime.initContainers = spec.initContainers;
  runtime.resources = spec.resources;
  runtime.imagePullSecrets = spec.imagePullSecrets;
  if (spec.gangScheduler) {
    runtime.gangSchedulerName = spec.gangScheduler->schedulerName;
    runtime.gangSchedulerQueue = spec.gangScheduler->queue;
    runtime.gangSchedulerQueueLabelKey = spec.gangScheduler->queueLabelKey;
  }
  switch (settled.framework) {
    case Framework::kTorch:
      return platform::build_torch_runtime(runtime);
    case Framework::kMpi:
      return platform::build_mpi_runtime(runtime);
    case Framework::kExec:
      break;
  }
  return platform::build_exec_runtime(runtime);
}

// The ConfigMap of an inline config and the checkpoint PVC, each when asked for.
void add_config_and_checkpoint(const std::string& name, const api::WorkloadRunSpec& spec,
                               std::vector<api::DependencySpec>& dependencies) {
  if (spec.config && !spec.config->inline_.empty()) {
    json::object data;
    for (const auto& [file, content] : spec.config->inline_) data[file] = content;
    dependencies.push_back(api::DependencySpec{
        json::object{{"apiVersion", "v1"},
                     {"kind", "ConfigMap"},
                     {"metadata", json::object{{"name", name + "-config"},
                                               {"labels", json::object{{"app", name}}}}},
                     {"data", std::move(data)}},
        {}});
  }
  if (spec.checkpoint) {
    if (spec.checkpoint->storageSize.empty()) {
      throw BuildFailure("spec.checkpoint.storageSize is required (e.g. 100Gi)");
    }
    json::object pvc_spec{
        {"accessModes", json::array{"ReadWriteMany"}},
        {"resources",
         json::object{{"requests", json::object{{"storage", spec.checkpoint->storageSize}}}}}};
    if (spec.checkpoint->storageClassName)
      pvc_spec["storageClassName"] = *spec.checkpoint->storageClassName;
    dependencies.push_back(api::DependencySpec{
        json::object{{"apiVersion", "v1"},
                     {"kind", "PersistentVolumeClaim"},
                     {"metadata", json::object{{"name", name + "-checkpoint-pvc"}}},
                     {"spec", std::move(pvc_spec)}},
        {}});
  }
}

// Target, iterations, topology and execution limits.
void set_orchestration(const api::WorkloadRunSpec& spec, const std::string& test_scale,
                       api::OrchestrationSpec& orchestration) {
  orchestration.target =
      spec.target ? *spec.target
                  : api::TargetSpec{{{std::string(kGpuPresentLabel), "true"}}, {}, {}, {}};
  orchestration.iterations =
      spec.orchestration && spec.orchestration->repeatCount ? *spec.orchestration->repeatCount : 1;
  if (test_scale == api::test_scale::kIntraRack)
    orchestration.topology = api::TopologySpec{"", true};
  if (spec.orchestration && spec.orchestration->maxConcurrent) {
    orchestration.execution.maxConcurrent = *spec.orchestration->maxConcurrent;
  }
  orchestration.execution.timeoutPerJob = timeout_per_job(spec.orchestration);
  if (spec.orchestration) orchestration.placement = spec.orchestration->placement;
}

// The trainer's framework with the mpiArgs of the matching platform overrides, and their
// preCommands.
struct FoldedOverrides {
  api::FrameworkSpec framework;
  std::vector<std::string> pre_commands;
};

// Each later match's mpiArgs are prepended.
FoldedOverrides fold_matching_overrides(const api::FrameworkSpec& framework_spec,
                                        Framework framework,
                                        const std::vector<WorkloadRunOverride>& platform_overrides,
                                        const overrides::MatchContext& platform_context) {
  FoldedOverrides out{framework_spec, {}};
  for (const auto& override_item : platform_overrides) {
    bool matches = false;
    try {
      matches = overrides::when_matches(override_item.spec.when, platform_context);
    } catch (const std::exception&) {
      matches = false;  // the reference treats an evaluation error as "no match" here
    }
    if (!matches) continue;
    if (framework == Framework::kMpi && !override_item.mpiArgs.empty()) {
      auto& args = out.framework.mpi->mpiArgs;
      args.insert(args.begin(), override_item.mpiArgs.begin(), override_item.mpiArgs.end());
    }
    out.pre_commands.insert(out.pre_commands.end(), override_item.preCommand.begin(),
                            override_item.preCommand.end());
  }
  return out;
}

// The job template, its trainer command wrapped by the preCommands.
void set_job_template(const std::string& name, const api::WorkloadRunSpec& spec,
                      const Settled& settled, const FoldedOverrides& folded,
                      api::JobSpec& job_spec) {
  TrainerCommand command =
      trainer_command(settled.framework, folded.framework, settled.gpus, settled.env);
  wrap_with_pre_commands(command, folded.pre_commands);
  json::object trainer{{"image", spec.image}, {"command", strings(command.command)}};
  if (!command.args.empty()) trainer["args"] = strings(command.args);
  trainer["numNodes"] = settled.nodes_per_job;
  trainer["numProcPerNode"] = settled.gpus;
  json::object train_job{
      {"runtimeRef", json::object{{"name", name + "-runtime"}, {"kind", "TrainingRuntime"}}},
      {"trainer", std::move(trainer)}};
  if (auto patches = runtime_patches(settled.framework, spec.imagePullSecrets); !patches.empty()) {
    train_job["runtimePatches"] = std::move(patches);
  }
  job_spec.workload.trainJob = std::move(train_job);
  job_spec.nodeHealthMonitor = api::NodeHealthMonitor{
      api::CELNodeHealthCheck{std::string(api::kDefaultNodeHealthExpression)}};
  job_spec.goodputMeasurement = spec.goodputMeasurement;
  job_spec.bandwidthMeasurement = spec.bandwidthMeasurement;
  if (spec.checkpoint) {
    job_spec.checkpoint =
        api::CheckpointConfig{name + "-checkpoint-pvc", spec.checkpoint->maxRestarts};
  }
  job_spec.workloadMetadata = spec.workloadMetadata;
}

// Overrides (platform, unfiltered, then the user's) and validation.
void add_overrides_and_validation(const api::WorkloadRunSpec& spec,
                                  const std::vector<WorkloadRunOverride>& platform_overrides,
                                  api::WorkflowSpec& workflow_spec) {
  for (const auto& override_item : platform_overrides)
    workflow_spec.overrides.push_back(override_item.spec);
  workflow_spec.overrides.insert(workflow_spec.overrides.end(), spec.overrides.begin(),
                                 spec.overrides.end());
  if (!spec.thresholds.empty()) {
    api::PerformanceValidationSpec performance;
    performance.enabled = true;
    performance.thresholds = api::ThresholdSpec{spec.thresholds};
    workflow_spec.validation = api::ValidationSpec{std::move(performance)};
  }
}

// Offline there is no Workflow controller: the render resolves every override here, against
// the detected platform/GPU. The controller instead hands them all, unfiltered, to the Workflow
// controller, which applies them against the nodes it discovers, with tracking and events.
void resolve_overrides_offline(const BuildInput& input, api::WorkflowSpec& workflow_spec,
                               WorkloadRunBuild& result) {
  const auto context = overrides::match_context_for(
      workflow_spec, result.platform, result.gpu_architecture,
      workflow_spec.orchestration.topology
          ? platform::count_topology_domains(workflow_spec.orchestration.topology->topologyKey,
                                             input.nodes)
          : 0);
  auto resolved = overrides::resolve_overrides(workflow_spec, context);
  result.applied_overrides = std::move(resolved.applied);
  workflow_spec = std::move(resolved.spec);
  workflow_spec.overrides.clear();
  // What the Workflow controller would refuse after these overrides, refused here too.
  if (auto problem = workflow::placement_problem(workflow_spec.orchestration,
                                                 workflow_spec.orchestration.placement);
      !problem.empty()) {
    throw BuildFailure(problem);
  }
}

// The Workflow's spec before the Certification transforms; failures throw BuildFailure (or what
// the platform and override code throw).
api::WorkflowSpec build_workflow_spec(const std::string& name, const api::WorkloadRunSpec& spec,
                                      const BuildInput& input, WorkloadRunBuild& result) {
  api::WorkflowSpec workflow_spec;
  check_required_fields(name, spec);
  Settled settled;
  settled.framework = select_framework(spec.framework);
  settled.test_scale = supported_test_scale(spec);
  settle_hardware(spec, input, settled, result);

  settled.env = platform::merge_env_vars(platform::base_nccl_env_vars(settled.mnnvl), spec.env);
  Volumes volumes = volumes_with_config(name, spec);
  settled.nodes_per_job = settled.test_scale == api::test_scale::kIntraNode ? 1 : spec.numNodes;

  workflow_spec.dependencies.push_back(runtime_dependency(name, spec, settled, std::move(volumes)));
  add_config_and_checkpoint(name, spec, workflow_spec.dependencies);
  set_orchestration(spec, settled.test_scale, workflow_spec.orchestration);

  OverrideConfig override_config{name,
                                 settled.nodes_per_job,
                                 settled.gpus,
                                 settled.mlnx,
                                 settled.nic_resource_name,
                                 settled.mnnvl,
                                 std::string(framework_name(settled.framework)),
                                 settled.test_scale,
                                 spec.env,
                                 {},
                                 {}};
  const auto platform_overrides = build_platform_overrides(override_config);
  const overrides::MatchContext platform_context{
      result.platform, result.gpu_architecture, {}, {}, {}};

  const FoldedOverrides folded = fold_matching_overrides(spec.framework, settled.framework,
                                                         platform_overrides, platform_context);
  set_job_template(name, spec, settled, folded, workflow_spec.jobTemplate.spec);
  add_overrides_and_validation(spec, platform_overrides, workflow_spec);
  if (input.offline) resolve_overrides_offline(input, workflow_spec, result);
  return workflow_spec;
}

// The Workflow object: managed-by and WorkloadRun labels, owned by the run when it has a uid.
api::Workflow workflow_of(const api::WorkloadRun& run, api::WorkflowSpec workflow_spec) {
  const std::string& name = run.metadata.name;
  api::Workflow workflow;
  workflow.apiVersion = std::string(api::kApiVersion);
  workflow.kind = std::string(api::Workflow::kKind);
  workflow.metadata.name = name;
  workflow.metadata.namespace_ = run.metadata.namespace_;
  workflow.metadata.labels = {
      {std::string(api::kManagedByLabel), std::string(api::kManagedByValue)},
      {std::string(kWorkloadRunLabel), name}};
  if (!run.metadata.uid.empty()) {
    workflow.metadata.ownerReferences.push_back({std::string(api::kApiVersion),
                                                 std::string(api::WorkloadRun::kKind), name,
                                                 run.metadata.uid, true, true});
  }
  workflow.spec = std::move(workflow_spec);
  return workflow;
}

}  // namespace

std::string go_quote(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buffer[5];
          std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
          out += buffer;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

WorkloadRunBuild build_workloadrun_workflow(const api::WorkloadRun& run, const BuildInput& input) {
  const std::string& name = run.metadata.name;
  const api::WorkloadRunSpec& spec = run.spec;
  const std::string prefix = "workloadrun " + name + ": ";
  WorkloadRunBuild result;
  api::WorkflowSpec workflow_spec;
  try {
    workflow_spec = build_workflow_spec(name, spec, input, result);
  } catch (const BuildError&) {
    throw;
  } catch (const std::exception& error) {
    throw BuildError(std::string(kBuildFailed), prefix + error.what());
  }

  // The Certification post-resolve transforms (gang rewrite, workload labels, intent).
  try {
    const api::CategoryOptions options{.workloadMetadata = spec.workloadMetadata};
    overrides::apply_resolved_transforms(workflow_spec, options, spec.gangScheduler,
                                         platform::kSpecWorkloadLabelsPath);
  } catch (const overrides::TransformError& error) {
    throw BuildError(error.reason, prefix + error.what());
  }

  result.workflow = workflow_of(run, std::move(workflow_spec));
  return result;
}

}  // namespace nvcre::workloadrun
