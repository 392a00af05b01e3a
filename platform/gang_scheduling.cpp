#include "platform/gang_scheduling.hpp"

#include "jsonkit/paths.hpp"
#include "platform/mpi_scripts.hpp"

#include <algorithm>

namespace nvcre::platform {
namespace json = boost::json;
using namespace jsonkit;

namespace {

const std::initializer_list<std::string_view> kReplicatedJobsPath = {"spec", "template", "spec",
                                                                     "replicatedJobs"};

bool is_training_runtime(const json::object& object) {
  const json::string* kind = find_string(&object, "kind");
  return kind != nullptr && *kind == kTrainingRuntimeKind;
}

json::object* find_job(json::array& jobs, std::string_view name) {
  for (auto& job : jobs) {
    json::object* object = job.if_object();
    const json::string* job_name = find_string(object, "name");
    if (job_name != nullptr && *job_name == name) return object;
  }
  return nullptr;
}

// The gate BuildMPIRuntime and the catalog put on the launcher, and nothing else: a hand-written
// gate with more conditions is the author's intent and is left alone.
bool is_worker_ready_gate(const json::value* depends_on) {
  if (depends_on == nullptr || !depends_on->is_array() || depends_on->get_array().size() != 1) {
    return false;
  }
  const json::object* gate = depends_on->get_array().front().if_object();
  return gate != nullptr && *gate == json::object{{"name", mpi::kWorkerJob}, {"status", "Ready"}};
}

std::string first_container_image(const json::object& pod_spec) {
  const json::value* containers = pod_spec.if_contains("containers");
  if (containers == nullptr || !containers->is_array()) return {};
  for (const auto& container : containers->get_array()) {
    const json::string* image = find_string(container.if_object(), "image");
    if (image != nullptr && !image->empty()) return std::string(*image);
  }
  return {};
}

json::object wait_for_workers_container(const std::string& image) {
  return {
      {"name", mpi::kWaitForWorkersContainer},
      {"image", image},
      {"command", json::array{"sh", "-c"}},
      {"args", json::array{json::string(mpi::wait_for_workers_script())}},
      {"volumeMounts",
       json::array{
           json::object{{"name", mpi::kHostfileVolume},
                        {"mountPath", mpi::kHostfileDir},
                        {"readOnly", true}},
           json::object{{"name", mpi::kSshAuthVolume},
                        {"mountPath", mpi::kSshAuthMountPath},
                        {"readOnly", true}},
           json::object{{"name", mpi::kSshKeysVolume}, {"mountPath", mpi::kSshKeysMountPath}},
       }},
  };
}

// Whether `key` of `object` is absent or an object: the rewrite creates missing maps but skips a
// job that has a non-object where a map belongs, rather than replacing the author's value.
bool absent_or_object(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value == nullptr || value->is_object();
}

bool job_shape_is_rewritable(const json::object& job) {
  if (!absent_or_object(job, "template")) return false;
  const json::object* job_template = find_object(job, {"template"});
  if (job_template == nullptr) return true;
  if (!absent_or_object(*job_template, "metadata") || !absent_or_object(*job_template, "spec"))
    return false;
  if (const json::object* metadata = find_object(*job_template, {"metadata"})) {
    if (!absent_or_object(*metadata, "labels")) return false;
  }
  const json::object* job_spec = find_object(*job_template, {"spec"});
  if (job_spec == nullptr) return true;
  if (!absent_or_object(*job_spec, "template")) return false;
  const json::object* pod_template = find_object(*job_spec, {"template"});
  if (pod_template == nullptr) return true;
  if (!absent_or_object(*pod_template, "metadata") || !absent_or_object(*pod_template, "spec"))
    return false;
  const json::object* pod_metadata = find_object(*pod_template, {"metadata"});
  return pod_metadata == nullptr || absent_or_object(*pod_metadata, "labels");
}

// Copies original[path][key] into renamed when the original has it.
void restore_field(const json::object& original, json::object& renamed,
                   std::initializer_list<std::string_view> path, std::string_view key) {
  const json::object* source = find_object(original, path);
  const json::value* value = source != nullptr ? source->if_contains(key) : nullptr;
  if (value == nullptr) return;
  json::object& target = ensure_path(renamed, path);
  const json::value* current = target.if_contains(key);
  if (current == nullptr || *current != *value) target[key] = *value;
}

}  // namespace

bool gang_scheduler_configured(const std::optional<api::GangSchedulerSpec>& spec) {
  return spec.has_value() && !spec->schedulerName.empty();
}

std::optional<api::GangSchedulerSpec> resolve_gang_scheduler(
    const std::optional<api::GangSchedulerSpec>& spec) {
  if (!gang_scheduler_configured(spec)) return std::nullopt;
  api::GangSchedulerSpec resolved = *spec;
  if (resolved.queue.empty()) resolved.queue = std::string(api::kDefaultGangQueue);
  if (resolved.queueLabelKey.empty())
    resolved.queueLabelKey = std::string(api::kDefaultGangQueueLabelKey);
  return resolved;
}

bool apply_kai_launcher_rule(json::object& runtime, std::string_view scheduler_name) {
  if (scheduler_name != kKaiSchedulerName || !is_training_runtime(runtime)) return false;
  if (find_object(runtime, {"spec", "mlPolicy", "mpi"}) == nullptr) return false;
  json::array* jobs = find_array(runtime, kReplicatedJobsPath);
  json::object* launcher = jobs != nullptr ? find_job(*jobs, mpi::kLauncherJob) : nullptr;
  if (launcher == nullptr || !is_worker_ready_gate(launcher->if_contains("dependsOn")))
    return false;
  json::object* pod_spec = find_object(*launcher, {"template", "spec", "template", "spec"});
  if (pod_spec == nullptr) return false;
  // Without an image the wait container could not start; keeping the gate is the safer failure.
  const std::string image = first_container_image(*pod_spec);
  const json::value* existing = pod_spec->if_contains("initContainers");
  if (image.empty() || (existing != nullptr && !existing->is_array())) return false;

  json::value& init_slot = (*pod_spec)["initContainers"];
  if (!init_slot.is_array()) init_slot = json::array();
  json::array& init_containers = init_slot.get_array();
  const bool waiting =
      std::any_of(init_containers.begin(), init_containers.end(), [](const json::value& c) {
        const json::string* name = find_string(c.if_object(), "name");
        return name != nullptr && *name == mpi::kWaitForWorkersContainer;
      });
  if (!waiting) init_containers.push_back(wait_for_workers_container(image));
  // Order-preserving erasure invalidates references into the object, so it comes last and the
  // JobSet spec is looked up afresh.
  launcher->stable_erase("dependsOn");
  if (json::object* jobset_spec = find_object(runtime, {"spec", "template", "spec"})) {
    jobset_spec->stable_erase("startupPolicy");
  }
  return true;
}

bool apply_gang_scheduler_to_runtime(json::object& runtime,
                                     const api::GangSchedulerSpec& resolved) {
  if (!is_training_runtime(runtime)) return false;
  json::array* jobs = find_array(runtime, kReplicatedJobsPath);
  if (jobs == nullptr) return false;
  const auto intent = resolve_gang_scheduler(resolved);  // tolerate a caller that skipped resolving
  if (!intent) return false;

  const json::object before = runtime;
  for (auto& job : *jobs) {
    json::object* job_object = job.if_object();
    if (job_object == nullptr || !job_shape_is_rewritable(*job_object)) continue;
    json::object& job_template = ensure_object(*job_object, "template");
    ensure_path(job_template, {"metadata", "labels"})[intent->queueLabelKey] = intent->queue;
    json::object& pod_template = ensure_path(job_template, {"spec", "template"});
    ensure_path(pod_template, {"metadata", "labels"})[intent->queueLabelKey] = intent->queue;
    ensure_object(pod_template, "spec")["schedulerName"] = intent->schedulerName;
  }
  apply_kai_launcher_rule(runtime, intent->schedulerName);
  return runtime != before;
}

void apply_gang_scheduler_to_dependencies(std::vector<api::DependencySpec>& dependencies,
                                          const std::optional<api::GangSchedulerSpec>& spec) {
  const auto resolved = resolve_gang_scheduler(spec);
  if (!resolved) return;
  for (auto& dependency : dependencies)
    apply_gang_scheduler_to_runtime(dependency.resource, *resolved);
}

json::object preserve_scheduling_fields(const json::object& original, json::object renamed,
                                        const std::optional<api::GangSchedulerSpec>& spec) {
  const auto resolved = resolve_gang_scheduler(spec);
  if (!resolved || original.empty() || renamed.empty() || !is_training_runtime(renamed))
    return renamed;
  const json::array* original_jobs = find_array(original, kReplicatedJobsPath);
  json::array* renamed_jobs = find_array(renamed, kReplicatedJobsPath);
  if (original_jobs == nullptr || renamed_jobs == nullptr ||
      original_jobs->size() != renamed_jobs->size()) {
    return renamed;
  }
  for (std::size_t i = 0; i < original_jobs->size(); ++i) {
    const json::object* before = (*original_jobs)[i].if_object();
    json::object* after = (*renamed_jobs)[i].if_object();
    if (before == nullptr || after == nullptr) continue;
    const std::string& key = resolved->queueLabelKey;
    restore_field(*before, *after, {"template", "metadata", "labels"}, key);
    restore_field(*before, *after, {"template", "spec", "template", "metadata", "labels"}, key);
    restore_field(*before, *after, {"template", "spec", "template", "spec"}, "schedulerName");
  }
  return renamed;
}

}  // namespace nvcre::platform
