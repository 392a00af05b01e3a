#include "platform/gang_validation.hpp"

#include "api/labels.hpp"

#include "k8s/label_validation.hpp"
#include "platform/gang_scheduling.hpp"
#include "jsonkit/paths.hpp"

namespace nvcre::platform {
namespace json = boost::json;
using namespace jsonkit;

namespace {

using api::kManagedByLabel;
constexpr std::string_view kReservedPrefix = "nvcre.nvidia.com/";

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

std::string api_group_of(std::string_view api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string()
                                         : std::string(api_version.substr(0, slash));
}

const json::object* find_runtime(const std::vector<api::DependencySpec>& dependencies,
                                 std::string_view name) {
  for (const auto& dependency : dependencies) {
    const json::object& resource = dependency.resource;
    const json::string* kind = find_string(&resource, "kind");
    const json::string* api_version = find_string(&resource, "apiVersion");
    const json::string* dependency_name = find_string(find_object(resource, {"metadata"}), "name");
    if (kind != nullptr && *kind == kTrainingRuntimeKind && api_version != nullptr &&
        api_group_of(*api_version) == kTrainerApiGroup && dependency_name != nullptr &&
        *dependency_name == name) {
      return &resource;
    }
  }
  return nullptr;
}

// What one replicated job ends up with once the TrainJob's runtime patches apply.
struct EffectiveJob {
  json::object jobLabels;
  json::object podLabels;
  std::optional<json::value> schedulerName;
};

void fold_job(const json::object& job, EffectiveJob& effective) {
  if (const json::object* labels = find_object(job, {"template", "metadata", "labels"})) {
    for (const auto& entry : *labels) effective.jobLabels[entry.key()] = entry.value();
  }
  if (const json::object* labels =
          find_object(job, {"template", "spec", "template", "metadata", "labels"})) {
    for (const auto& entry : *labels) effective.podLabels[entry.key()] = entry.value();
  }
  if (const json::object* pod_spec = find_object(job, {"template", "spec", "template", "spec"})) {
    if (const json::value* scheduler = pod_spec->if_contains("schedulerName"))
      effective.schedulerName = *scheduler;
  }
}

std::string describe(const json::value* value) {
  if (value == nullptr) return "missing";
  if (value->is_string()) return quoted(value->get_string());
  return json::serialize(*value);
}

std::optional<std::string> check_job(const json::object& job, std::size_t index,
                                     const json::object& train_job,
                                     const api::GangSchedulerSpec& intent,
                                     std::string_view runtime_name) {
  const json::string* name = find_string(&job, "name");
  const std::string job_name = name != nullptr ? std::string(*name) : "#" + std::to_string(index);
  EffectiveJob effective;
  fold_job(job, effective);
  // Runtime patches are applied by the Trainer in list order, so a later patch wins.
  if (const json::value* patches = train_job.if_contains("runtimePatches");
      patches != nullptr && patches->is_array()) {
    for (const auto& patch : patches->get_array()) {
      const json::object* patch_object = patch.if_object();
      const json::array* patch_jobs =
          patch_object != nullptr ? find_array(*patch_object, {"trainingRuntimeSpec", "template",
                                                               "spec", "replicatedJobs"})
                                  : nullptr;
      if (patch_jobs == nullptr) continue;
      for (const auto& patch_job : *patch_jobs) {
        const json::object* patch_job_object = patch_job.if_object();
        const json::string* patch_name = find_string(patch_job_object, "name");
        if (name != nullptr && patch_name != nullptr && *patch_name == *name)
          fold_job(*patch_job_object, effective);
      }
    }
  }
  const std::string where =
      "TrainingRuntime " + quoted(runtime_name) + " replicatedJob " + quoted(job_name);
  const json::value want(intent.queue);
  const json::value* job_label = effective.jobLabels.if_contains(intent.queueLabelKey);
  if (job_label == nullptr || *job_label != want) {
    return where + ": job template label " + quoted(intent.queueLabelKey) + " is " +
           describe(job_label) + ", gangScheduler.queue is " + quoted(intent.queue);
  }
  const json::value* pod_label = effective.podLabels.if_contains(intent.queueLabelKey);
  if (pod_label == nullptr || *pod_label != want) {
    return where + ": pod template label " + quoted(intent.queueLabelKey) + " is " +
           describe(pod_label) + ", gangScheduler.queue is " + quoted(intent.queue);
  }
  const json::value* scheduler = effective.schedulerName ? &*effective.schedulerName : nullptr;
  if (scheduler == nullptr || *scheduler != json::value(intent.schedulerName)) {
    return where + ": pod schedulerName is " + describe(scheduler) +
           ", gangScheduler.schedulerName is " + quoted(intent.schedulerName);
  }
  return std::nullopt;
}

std::optional<std::string> check_runtime(const api::JobTemplateSpec& job_template,
                                         const std::vector<api::DependencySpec>& dependencies,
                                         const api::GangSchedulerSpec& intent) {
  const auto& train_job = job_template.spec.workload.trainJob;
  if (!train_job) return "gang scheduling needs a trainJob workload, and the job template has none";
  const json::object* ref = find_object(*train_job, {"runtimeRef"});
  if (ref == nullptr)
    return "trainJob has no runtimeRef, so no TrainingRuntime carries the gang scheduler";
  const std::string group =
      jsonkit::optional_string_of(*ref, "apiGroup").value_or(std::string(kTrainerApiGroup));
  const std::string kind =
      jsonkit::optional_string_of(*ref, "kind").value_or(std::string(kClusterTrainingRuntimeKind));
  const std::string name = jsonkit::optional_string_of(*ref, "name").value_or("");
  const std::string ref_text = "trainJob.runtimeRef (apiGroup " + quoted(group) + ", kind " +
                               quoted(kind) + ", name " + quoted(name) + ")";
  if (group != kTrainerApiGroup || kind != kTrainingRuntimeKind) {
    return ref_text +
           " must name a trainer.kubeflow.org TrainingRuntime supplied in the Workflow "
           "dependencies; anything else escapes the gang scheduler";
  }
  const json::object* runtime = find_runtime(dependencies, name);
  if (runtime == nullptr) {
    return ref_text +
           " points outside the Workflow dependencies; no trainer.kubeflow.org TrainingRuntime " +
           quoted(name) + " is among them";
  }
  const json::array* jobs = find_array(*runtime, {"spec", "template", "spec", "replicatedJobs"});
  if (jobs == nullptr || jobs->empty()) {
    return "TrainingRuntime " + quoted(name) + " has no replicatedJobs to carry the gang scheduler";
  }
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    const json::object* job = (*jobs)[i].if_object();
    if (job == nullptr) {
      return "TrainingRuntime " + quoted(name) + " replicatedJob #" + std::to_string(i) +
             " is not an object";
    }
    if (auto problem = check_job(*job, i, *train_job, intent, name)) return problem;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> workload_labels_problem(
    const std::map<std::string, std::string>& labels) {
  if (labels.size() > kMaxWorkloadLabels) {
    return "workload labels: " + std::to_string(labels.size()) + " labels exceed the limit of " +
           std::to_string(kMaxWorkloadLabels);
  }
  for (const auto& [key, value] : labels) {
    if (key == kManagedByLabel)
      return "workload labels: key " + quoted(key) + " is reserved for the controller";
    if (key.starts_with(kReservedPrefix)) {
      return "workload labels: key " + quoted(key) + " uses the reserved prefix " +
             quoted(kReservedPrefix);
    }
    if (auto errors = k8s::qualified_name_errors(key); !errors.empty()) {
      return "workload labels: invalid key " + quoted(key) + ": " + join(errors);
    }
    if (auto errors = k8s::label_value_errors(value); !errors.empty()) {
      return "workload labels: invalid value " + quoted(value) + " for key " + quoted(key) + ": " +
             join(errors);
    }
  }
  return std::nullopt;
}

ResolvedTemplateCheck validate_resolved_job_template(
    api::JobTemplateSpec job_template, const std::vector<api::DependencySpec>& dependencies,
    const std::optional<api::GangSchedulerSpec>& intent) {
  ResolvedTemplateCheck check;
  const auto resolved = resolve_gang_scheduler(intent);
  auto conflict = [&](std::string message) {
    check.conflict = GangConflict{std::string(api::workflow_reason::kGangSchedulingConflict),
                                  std::move(message)};
  };
  if (resolved) {
    auto& metadata = job_template.spec.workloadMetadata;
    auto existing = metadata ? metadata->labels.find(resolved->queueLabelKey)
                             : std::map<std::string, std::string>::iterator();
    if (!metadata || existing == metadata->labels.end()) {
      if (!metadata) metadata.emplace();
      metadata->labels[resolved->queueLabelKey] = resolved->queue;
      check.queueLabelRestored = true;
    } else if (existing->second != resolved->queue) {
      conflict("workload label " + quoted(resolved->queueLabelKey) + " is " +
               quoted(existing->second) + ", gangScheduler.queue is " + quoted(resolved->queue));
    }
  }
  if (!check.conflict && job_template.spec.workloadMetadata) {
    if (auto problem = workload_labels_problem(job_template.spec.workloadMetadata->labels))
      conflict(*problem);
  }
  if (!check.conflict && resolved) {
    if (auto problem = check_runtime(job_template, dependencies, *resolved)) conflict(*problem);
  }
  check.jobTemplate = std::move(job_template);
  return check;
}

}  // namespace nvcre::platform
