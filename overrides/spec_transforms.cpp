#include "overrides/spec_transforms.hpp"

#include "platform/gang_scheduling.hpp"
#include "platform/gang_validation.hpp"

namespace nvcre::overrides {
namespace json = boost::json;

namespace {

constexpr std::string_view kGangSchedulingConflict = "GangSchedulingConflict";

json::object* object_at(json::object& parent, std::string_view key) {
  auto* value = parent.if_contains(key);
  return value ? value->if_object() : nullptr;
}

json::array* array_at(json::object& parent, std::string_view key) {
  auto* value = parent.if_contains(key);
  return value ? value->if_array() : nullptr;
}

// The pod spec of one JobSet replicated job: template.spec.template.spec.
json::object* pod_spec_of(json::value& replicated_job) {
  auto* job = replicated_job.if_object();
  json::object* node = job;
  for (std::string_view key : {"template", "spec", "template", "spec"}) {
    if (node == nullptr) return nullptr;
    node = object_at(*node, key);
  }
  return node;
}

void override_runtime_images(json::object& runtime, const std::string& image) {
  auto* spec = object_at(runtime, "spec");
  auto* template_object = spec ? object_at(*spec, "template") : nullptr;
  auto* jobset_spec = template_object ? object_at(*template_object, "spec") : nullptr;
  auto* replicated_jobs = jobset_spec ? array_at(*jobset_spec, "replicatedJobs") : nullptr;
  if (replicated_jobs == nullptr) return;
  for (auto& replicated_job : *replicated_jobs) {
    auto* pod_spec = pod_spec_of(replicated_job);
    auto* containers = pod_spec ? array_at(*pod_spec, "containers") : nullptr;
    if (containers == nullptr || containers->empty() || !containers->front().is_object()) continue;
    auto& primary = containers->front().as_object();
    const auto* old_image = primary.if_contains("image");
    const std::string previous =
        old_image && old_image->is_string() ? std::string(old_image->get_string()) : "";
    primary["image"] = image;
    auto* init_containers = array_at(*pod_spec, "initContainers");
    if (init_containers == nullptr || previous.empty()) continue;
    for (auto& init : *init_containers) {
      auto* init_object = init.if_object();
      const auto* init_image = init_object ? init_object->if_contains("image") : nullptr;
      if (init_image && init_image->is_string() && init_image->get_string() == previous) {
        (*init_object)["image"] = image;
      }
    }
  }
}

}  // namespace

void apply_image_override(api::WorkflowSpec& spec, const std::string& image) {
  if (image.empty()) return;
  if (auto& train_job = spec.jobTemplate.spec.workload.trainJob) {
    if (auto* trainer = object_at(*train_job, "trainer")) (*trainer)["image"] = image;
  }
  for (auto& dependency : spec.dependencies) {
    const auto* kind = dependency.resource.if_contains("kind");
    if (kind && kind->is_string() && kind->get_string() == "TrainingRuntime") {
      override_runtime_images(dependency.resource, image);
    }
  }
}

void apply_workload_labels(api::WorkflowSpec& spec,
                           const std::map<std::string, std::string>& option_labels,
                           const std::optional<api::GangSchedulerSpec>& resolved_gang,
                           std::string_view labels_path) {
  std::map<std::string, std::string> labels;
  if (spec.jobTemplate.spec.workloadMetadata)
    labels = spec.jobTemplate.spec.workloadMetadata->labels;
  for (const auto& [key, value] : option_labels) labels[key] = value;
  if (resolved_gang) {
    const std::string& key = resolved_gang->queueLabelKey;
    const std::string& queue = resolved_gang->queue;
    auto existing = labels.find(key);
    if (existing != labels.end() && existing->second != queue) {
      throw TransformError(
          std::string(kGangSchedulingConflict),
          platform::conflicting_label_message(labels_path, key, existing->second, queue));
    }
    labels[key] = queue;
  }
  if (labels.empty()) return;
  if (auto problem = platform::workload_labels_problem(labels, labels_path))
    throw TransformError(std::string(kGangSchedulingConflict), *problem);
  if (!spec.jobTemplate.spec.workloadMetadata) spec.jobTemplate.spec.workloadMetadata.emplace();
  spec.jobTemplate.spec.workloadMetadata->labels = std::move(labels);
}

void apply_resolved_transforms(api::WorkflowSpec& spec, const api::CategoryOptions& options,
                               const std::optional<api::GangSchedulerSpec>& gang_scheduler,
                               std::string_view labels_path) {
  const auto resolved_gang = platform::resolve_gang_scheduler(gang_scheduler);
  platform::apply_gang_scheduler_to_dependencies(spec.dependencies, gang_scheduler);
  apply_image_override(spec, options.image);
  static const std::map<std::string, std::string> no_labels;
  apply_workload_labels(spec,
                        options.workloadMetadata ? options.workloadMetadata->labels : no_labels,
                        resolved_gang, labels_path);
  spec.gangScheduler = resolved_gang;
  auto check = platform::validate_resolved_job_template(spec.jobTemplate, spec.dependencies,
                                                        resolved_gang, labels_path);
  if (check.conflict) throw TransformError(check.conflict->reason, check.conflict->message);
  spec.jobTemplate = std::move(check.jobTemplate);
}

}  // namespace nvcre::overrides
