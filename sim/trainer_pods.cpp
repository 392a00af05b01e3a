#include "sim/trainer_pods.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"
#include "sim/store.hpp"
#include "jsonkit/named_merge.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <optional>

namespace nvcre::sim::trainer {

namespace json = boost::json;
using jsonkit::ensure_object;
using jsonkit::ensure_path;
using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;
using jsonkit::integer_of;

namespace {

constexpr std::string_view kAncestorStepLabel = "trainer.kubeflow.org/trainjob-ancestor-step";

const json::object* labels_of(const json::value& object) {
  const auto* root = object.if_object();
  return root ? find_object(*root, {"metadata", "labels"}) : nullptr;
}

bool is_trainer_step(const json::object& replicated_job) {
  const auto* labels = find_object(replicated_job, {"template", "metadata", "labels"});
  const auto* step = find_string(labels, kAncestorStepLabel);
  return step != nullptr && *step == "trainer";
}

// spec.trainer's image / command / args / env go to the trainer step's `node` container.
void apply_trainer(const json::object& trainer, json::object& pod_spec) {
  auto* containers = find_array(pod_spec, {"containers"});
  if (containers == nullptr || containers->empty()) return;
  json::value* target = &containers->front();
  for (auto& container : *containers)
    if (const auto* name = find_string(container.if_object(), "name"); name && *name == kWorkerJob)
      target = &container;
  if (!target->is_object()) return;
  for (const char* key : {"image", "command", "args"})
    if (const auto* value = trainer.if_contains(key)) target->as_object()[key] = *value;
  // trainer.env adds to the container's env, replacing same-named variables.
  if (const auto* env = trainer.if_contains("env")) {
    const json::value* current = target->as_object().if_contains("env");
    target->as_object()["env"] =
        jsonkit::merge_named_lists(current != nullptr ? *current : json::value(), *env);
  }
}

// Trainer v2.0's podTemplateOverrides: [{targetJobs: [{name}], metadata, spec}].
void apply_pod_template_overrides(const json::object& train_job_spec, const std::string& job,
                                  json::object& pod_template) {
  const auto* overrides = find_array(train_job_spec, {"podTemplateOverrides"});
  if (overrides == nullptr) return;
  for (const auto& item : *overrides) {
    const auto* entry = item.if_object();
    const auto* targets = entry ? find_array(*entry, {"targetJobs"}) : nullptr;
    if (targets == nullptr) continue;
    const bool targeted =
        std::any_of(targets->begin(), targets->end(), [&](const json::value& target) {
          const auto* name = find_string(target.if_object(), "name");
          return name != nullptr && *name == job;
        });
    if (!targeted) continue;
    for (const char* key : {"metadata", "spec"})
      if (const auto* part = entry->if_contains(key))
        pod_template[key] = jsonkit::merge_named(
            pod_template.contains(key) ? pod_template[key] : json::value(), *part);
  }
}

std::string internal_ip(const json::value& node) {
  if (const auto* addresses = find_array(node.as_object(), {"status", "addresses"}))
    for (const auto& a : *addresses)
      if (const auto* type = find_string(a.if_object(), "type"); type && *type == "InternalIP")
        if (const auto* address = find_string(a.if_object(), "address"))
          return std::string(*address);
  return "10.0.0.1";
}

// Deterministic stand-in for the random suffix Job pods get (kube's alphabet, no vowels).
std::string name_suffix(const std::string& seed) {
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : seed) hash = (hash ^ c) * 1099511628211ULL;
  static constexpr std::string_view alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < 5; ++i, hash /= alphabet.size()) out += alphabet[hash % alphabet.size()];
  return out;
}

json::array container_names(const json::value& pod) {
  json::array out;
  if (const auto* containers = find_array(pod.as_object(), {"spec", "containers"}))
    for (const auto& c : *containers)
      if (const auto* name = find_string(c.if_object(), "name"))
        out.push_back(json::object{
            {"name", *name},
            {"image", c.as_object().contains("image") ? c.at("image") : json::value("")}});
  if (out.empty()) out.push_back(json::object{{"name", kWorkerJob}, {"image", ""}});
  return out;
}

json::object condition(const char* type, const char* status, const std::string& now,
                       const char* reason = nullptr, const std::string& message = {}) {
  json::object c{
      {"type", type}, {"status", status}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}};
  if (reason) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

}  // namespace

int num_nodes(const json::object& train_job_spec, const json::object& runtime_spec) {
  const auto* trainer = find_object(train_job_spec, {"trainer"});
  std::int64_t n = integer_of(trainer ? trainer->if_contains("numNodes") : nullptr, 0);
  if (n <= 0) {
    const auto* policy = find_object(runtime_spec, {"mlPolicy"});
    n = integer_of(policy ? policy->if_contains("numNodes") : nullptr, 1);
  }
  return static_cast<int>(std::clamp<std::int64_t>(n, 1, 10000));
}

std::vector<ReplicatedJobPlan> plan_replicated_jobs(const json::object& train_job_spec,
                                                    const json::object& runtime_spec) {
  std::vector<ReplicatedJobPlan> plans;
  const auto* jobs = find_array(runtime_spec, {"template", "spec", "replicatedJobs"});
  if (jobs == nullptr) return plans;
  bool any_trainer_step = false;
  for (const auto& job : *jobs)
    any_trainer_step = any_trainer_step || (job.is_object() && is_trainer_step(job.as_object()));
  const int workers = num_nodes(train_job_spec, runtime_spec);
  for (const auto& job : *jobs) {
    const auto* name = find_string(job.if_object(), "name");
    if (name == nullptr) continue;
    json::value merged = job;
    if (const auto* patches = find_array(train_job_spec, {"runtimePatches"}))
      for (const auto& patch : *patches) {
        const auto* patch_jobs =
            patch.is_object() ? find_array(patch.as_object(), {"trainingRuntimeSpec", "template",
                                                               "spec", "replicatedJobs"})
                              : nullptr;
        if (patch_jobs == nullptr) continue;
        for (const auto& patch_job : *patch_jobs)
          if (const auto* patch_name = find_string(patch_job.if_object(), "name");
              patch_name && *patch_name == *name)
            merged = jsonkit::merge_named(merged, patch_job);
      }
    ReplicatedJobPlan plan;
    plan.name = std::string(*name);
    const auto& object = merged.as_object();
    if (const auto* pod_template = find_object(object, {"template", "spec", "template"}))
      plan.pod_template = *pod_template;
    apply_pod_template_overrides(train_job_spec, plan.name, plan.pod_template);
    const auto* trainer = find_object(train_job_spec, {"trainer"});
    const bool trainer_step = any_trainer_step ? is_trainer_step(object) : plan.name == kWorkerJob;
    if (trainer && trainer_step) apply_trainer(*trainer, ensure_object(plan.pod_template, "spec"));
    const auto* job_spec = find_object(object, {"template", "spec"});
    const std::int64_t replicas =
        std::max<std::int64_t>(1, integer_of(object.if_contains("replicas"), 1));
    const std::int64_t parallelism = std::max<std::int64_t>(
        1, integer_of(job_spec ? job_spec->if_contains("parallelism") : nullptr, 1));
    plan.pods = plan.name == kWorkerJob
                    ? workers
                    : static_cast<int>(std::min<std::int64_t>(replicas * parallelism, 10000));
    plans.push_back(std::move(plan));
  }
  return plans;
}

json::value build_pod(const PodIdentity& id, const ReplicatedJobPlan& plan) {
  const std::string job_name = id.train_job + "-" + plan.name + "-0";
  const std::string index = std::to_string(id.index);
  json::object metadata;
  if (const auto* template_metadata = find_object(plan.pod_template, {"metadata"}))
    metadata = *template_metadata;
  auto& labels = ensure_object(metadata, "labels");
  labels[kJobSetNameLabel] = id.train_job;
  labels[kReplicatedJobNameLabel] = plan.name;
  labels["jobset.sigs.k8s.io/replicatedjob-replicas"] = "1";
  labels["jobset.sigs.k8s.io/job-index"] = "0";
  labels["jobset.sigs.k8s.io/restart-attempt"] = "0";
  labels["batch.kubernetes.io/job-name"] = job_name;
  labels["job-name"] = job_name;
  labels[kCompletionIndexLabel] = index;
  ensure_object(metadata, "annotations")[kCompletionIndexLabel] = index;
  metadata["name"] =
      job_name + "-" + index + "-" + name_suffix(id.uid + "/" + plan.name + "/" + index);
  metadata["namespace"] = id.ns;
  metadata.erase("generateName");
  metadata["ownerReferences"] = json::array{k8s::owner_reference(
      "trainer.kubeflow.org/v1alpha1", "TrainJob", id.train_job, id.uid, true)};
  json::object spec;
  if (const auto* template_spec = find_object(plan.pod_template, {"spec"})) spec = *template_spec;
  if (!spec.contains("containers"))
    spec["containers"] = json::array{json::object{{"name", kWorkerJob}}};
  spec["hostname"] = job_name + "-" + index;
  spec["subdomain"] = id.train_job;
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "OnFailure";
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", std::move(metadata)},
                      {"spec", std::move(spec)}};
}

json::object pending_status(const std::string& now, const std::string& unschedulable_message) {
  json::object scheduled =
      unschedulable_message.empty()
          ? condition("PodScheduled", "True", now)
          : condition("PodScheduled", "False", now, "Unschedulable", unschedulable_message);
  return json::object{{"phase", "Pending"},
                      {"conditions", json::array{std::move(scheduled)}},
                      {"qosClass", "BestEffort"}};
}

json::object running_status(const json::value& pod, const json::value& node,
                            const std::string& now) {
  const std::string ip = internal_ip(node);
  json::array statuses;
  for (auto& c : container_names(pod)) {
    auto& status = c.as_object();
    status["containerID"] = "containerd://" + name_suffix(meta_string(pod, "name") +
                                                          std::string(status["name"].as_string()));
    status["ready"] = true;
    status["started"] = true;
    status["restartCount"] = 0;
    status["state"] = json::object{{"running", json::object{{"startedAt", now}}}};
    statuses.push_back(std::move(c));
  }
  return json::object{
      {"phase", "Running"},
      {"hostIP", ip},
      {"podIP", ip},
      {"startTime", now},
      {"qosClass", "BestEffort"},
      {"conditions",
       json::array{condition("PodScheduled", "True", now), condition("Initialized", "True", now),
                   condition("ContainersReady", "True", now), condition("Ready", "True", now)}},
      {"containerStatuses", std::move(statuses)}};
}

json::object terminated_status(const json::value& pod, const std::string& now, int exit_code,
                               const std::string& message) {
  json::object status;
  if (const auto* current = find_object(pod.as_object(), {"status"})) status = *current;
  const auto* started = find_string(&status, "startTime");
  const std::string started_at = started ? std::string(*started) : now;
  json::object terminated{{"exitCode", exit_code},
                          {"reason", exit_code == 0 ? "Completed" : "Error"},
                          {"startedAt", started_at},
                          {"finishedAt", now}};
  if (!message.empty()) terminated["message"] = message;
  json::array statuses;
  for (auto& c : container_names(pod)) {
    auto& entry = c.as_object();
    entry["containerID"] = "containerd://" + name_suffix(meta_string(pod, "name") +
                                                         std::string(entry["name"].as_string()));
    entry["ready"] = false;
    entry["started"] = false;
    entry["restartCount"] = 0;
    entry["state"] = json::object{{"terminated", terminated}};
    statuses.push_back(std::move(c));
  }
  const char* reason = exit_code == 0 ? "PodCompleted" : "PodFailed";
  status["phase"] = exit_code == 0 ? "Succeeded" : "Failed";
  status["conditions"] = json::array{
      condition("PodScheduled", "True", now), condition("Initialized", "True", now, reason),
      condition("ContainersReady", "False", now, reason), condition("Ready", "False", now, reason)};
  status["containerStatuses"] = std::move(statuses);
  return status;
}

std::string pod_phase(const json::value& pod) {
  const auto* object = pod.if_object();
  const auto* phase = object ? find_string(find_object(*object, {"status"}), "phase") : nullptr;
  return phase ? std::string(*phase) : std::string();
}

std::string pod_node(const json::value& pod) {
  const auto* object = pod.if_object();
  const auto* node = object ? find_string(find_object(*object, {"spec"}), "nodeName") : nullptr;
  return node ? std::string(*node) : std::string();
}

std::string pod_label(const json::value& pod, std::string_view key) {
  const auto* value = find_string(labels_of(pod), key);
  return value ? std::string(*value) : std::string();
}

}  // namespace nvcre::sim::trainer
