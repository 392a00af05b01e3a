#include "platform/gang_validation.hpp"

#include "api/labels.hpp"
#include "cel/go_format.hpp"

#include "k8s/label_validation.hpp"
#include "platform/gang_scheduling.hpp"
#include "jsonkit/paths.hpp"

namespace nvcre::platform {
namespace json = boost::json;
using namespace jsonkit;

namespace {

using api::kManagedByLabel;
constexpr std::string_view kReservedPrefix = "nvcre.nvidia.com/";

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

std::string text_of(const json::value* value) {
  if (value == nullptr) return {};
  return value->is_string() ? std::string(value->get_string()) : json::serialize(*value);
}

// The reference's assertQueueLabel: the configured queue under the configured key, at `path`.
std::optional<std::string> queue_label_problem(const json::object& labels,
                                               const api::GangSchedulerSpec& intent,
                                               std::string_view runtime_name,
                                               std::string_view job_name, std::string_view path) {
  const std::string head = "gangScheduler is configured with queue " +
                           cel::quote_go_string(intent.queue) + " but TrainingRuntime " +
                           cel::quote_go_string(runtime_name) + " replicatedJob " +
                           cel::quote_go_string(job_name);
  const json::value* value = labels.if_contains(intent.queueLabelKey);
  if (value == nullptr)
    return head + " is missing label " + cel::quote_go_string(intent.queueLabelKey) + " on " +
           std::string(path);
  if (*value != json::value(intent.queue)) {
    return head + " sets label " + cel::quote_go_string(intent.queueLabelKey) + " to " +
           cel::quote_go_string(text_of(value)) + " on " + std::string(path);
  }
  return std::nullopt;
}

std::optional<std::string> check_job(const json::value& entry, std::size_t index,
                                     const json::object& train_job,
                                     const api::GangSchedulerSpec& intent,
                                     std::string_view runtime_name) {
  const std::string cannot_check = "gangScheduler is configured but TrainingRuntime " +
                                   cel::quote_go_string(runtime_name) + " replicatedJob";
  const json::object* job = entry.if_object();
  if (job == nullptr) {
    return "gangScheduler is configured but TrainingRuntime " + cel::quote_go_string(runtime_name) +
           " replicatedJobs[" + std::to_string(index) +
           "] is not an object, so its queue label cannot be checked";
  }
  const json::string* name = find_string(job, "name");
  const std::string job_name = name != nullptr ? std::string(*name) : std::string();
  if (find_object(*job, {"template"}) == nullptr) {
    return cannot_check + " " + cel::quote_go_string(job_name) +
           " has no template, so its queue label cannot be checked";
  }
  if (find_object(*job, {"template", "spec", "template"}) == nullptr) {
    return cannot_check + " " + cel::quote_go_string(job_name) +
           " has no pod template, so its queue label cannot be checked";
  }
  EffectiveJob effective;
  fold_job(*job, effective);
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
        if (patch_name != nullptr && *patch_name == job_name)
          fold_job(*patch_job_object, effective);
      }
    }
  }
  if (auto problem = queue_label_problem(effective.jobLabels, intent, runtime_name, job_name,
                                         "template.metadata.labels"))
    return problem;
  if (auto problem = queue_label_problem(effective.podLabels, intent, runtime_name, job_name,
                                         "template.spec.template.metadata.labels"))
    return problem;
  if (find_object(*job, {"template", "spec", "template", "spec"}) == nullptr) {
    return cannot_check + " " + cel::quote_go_string(job_name) +
           " has no pod spec, so its scheduler name cannot be checked";
  }
  const json::value* scheduler = effective.schedulerName ? &*effective.schedulerName : nullptr;
  if (scheduler == nullptr || *scheduler != json::value(intent.schedulerName)) {
    return "gangScheduler is configured with schedulerName " +
           cel::quote_go_string(intent.schedulerName) + " but TrainingRuntime " +
           cel::quote_go_string(runtime_name) + " replicatedJob " + cel::quote_go_string(job_name) +
           " sets schedulerName " + cel::quote_go_string(text_of(scheduler));
  }
  return std::nullopt;
}

std::optional<std::string> check_runtime(const api::JobTemplateSpec& job_template,
                                         const std::vector<api::DependencySpec>& dependencies,
                                         const api::GangSchedulerSpec& intent) {
  const auto& train_job = job_template.spec.workload.trainJob;
  if (!train_job) {
    return "gangScheduler is configured but spec.jobTemplate.spec.workload has no trainJob, so "
           "its runtime scheduling cannot be checked";
  }
  // An absent runtimeRef reads as one with every field absent: Kubeflow's defaults apply.
  static const json::object kNoRef;
  const json::object* found_ref = find_object(*train_job, {"runtimeRef"});
  const json::object& ref = found_ref != nullptr ? *found_ref : kNoRef;
  const std::string group =
      jsonkit::optional_string_of(ref, "apiGroup").value_or(std::string(kTrainerApiGroup));
  const std::string kind =
      jsonkit::optional_string_of(ref, "kind").value_or(std::string(kClusterTrainingRuntimeKind));
  const std::string name = jsonkit::optional_string_of(ref, "name").value_or("");
  if (group != kTrainerApiGroup) {
    return "gangScheduler is configured but the workload references runtime apiGroup " +
           cel::quote_go_string(group) + " rather than " + cel::quote_go_string(kTrainerApiGroup) +
           ", so its scheduling cannot be checked";
  }
  if (kind != kTrainingRuntimeKind) {
    return "gangScheduler is configured but the workload references runtime kind " +
           cel::quote_go_string(kind) + "; only a namespaced " + std::string(kTrainingRuntimeKind) +
           " supplied as a Workflow dependency can be checked";
  }
  const json::object* runtime = find_runtime(dependencies, name);
  if (runtime == nullptr) {
    return "gangScheduler is configured but the workload references runtime " +
           cel::quote_go_string(name) + ", which is not among the Workflow's " +
           std::string(kTrainingRuntimeKind) + "." + std::string(kTrainerApiGroup) +
           " dependencies";
  }
  // An empty list is a list: nothing to carry the queue, nothing to contradict it.
  const json::array* jobs = find_array(*runtime, {"spec", "template", "spec", "replicatedJobs"});
  if (jobs == nullptr) {
    return "gangScheduler is configured but TrainingRuntime " + cel::quote_go_string(name) +
           " has no spec.template.spec.replicatedJobs, so its queue labels cannot be checked";
  }
  for (std::size_t i = 0; i < jobs->size(); ++i) {
    if (auto problem = check_job((*jobs)[i], i, *train_job, intent, name)) return problem;
  }
  return std::nullopt;
}

}  // namespace

std::string conflicting_label_message(std::string_view field_path, std::string_view key,
                                      std::string_view found, std::string_view expected) {
  return std::string(field_path) + "[" + cel::quote_go_string(key) + "]: conflicting label value " +
         cel::quote_go_string(found) + ", expected " + cel::quote_go_string(expected);
}

std::optional<std::string> workload_labels_problem(const std::map<std::string, std::string>& labels,
                                                   std::string_view field_path) {
  const std::string path(field_path);
  if (labels.size() > kMaxWorkloadLabels) {
    return path + ": " + std::to_string(labels.size()) + " labels exceeds the maximum of " +
           std::to_string(kMaxWorkloadLabels);
  }
  for (const auto& [key, value] : labels) {
    if (key == kManagedByLabel || key.starts_with(kReservedPrefix)) {
      return path + "[" + cel::quote_go_string(key) +
             "]: label key is reserved for the controller: " +
             cel::quote_go_string(kManagedByLabel) + " and any key under " +
             cel::quote_go_string(kReservedPrefix) + " identify workload ownership";
    }
    if (auto errors = k8s::qualified_name_errors(key); !errors.empty())
      return path + "[" + cel::quote_go_string(key) + "]: invalid label key: " + join(errors);
    if (auto errors = k8s::label_value_errors(value); !errors.empty()) {
      return path + "[" + cel::quote_go_string(key) + "]: invalid label value " +
             cel::quote_go_string(value) + ": " + join(errors);
    }
  }
  return std::nullopt;
}

ResolvedTemplateCheck validate_resolved_job_template(
    api::JobTemplateSpec job_template, const std::vector<api::DependencySpec>& dependencies,
    const std::optional<api::GangSchedulerSpec>& intent, std::string_view labels_path) {
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
      conflict(conflicting_label_message(labels_path, resolved->queueLabelKey, existing->second,
                                         resolved->queue));
    }
  }
  if (!check.conflict && job_template.spec.workloadMetadata) {
    if (auto problem =
            workload_labels_problem(job_template.spec.workloadMetadata->labels, labels_path))
      conflict(*problem);
  }
  if (!check.conflict && resolved) {
    if (auto problem = check_runtime(job_template, dependencies, *resolved)) conflict(*problem);
  }
  check.jobTemplate = std::move(job_template);
  return check;
}

}  // namespace nvcre::platform
