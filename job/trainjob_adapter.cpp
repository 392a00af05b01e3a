#include "job/trainjob_adapter.hpp"
#include "k8s/meta.hpp"

#include "api/meta.hpp"
#include "k8s/naming.hpp"
#include "platform/detect.hpp"
#include "jsonkit/paths.hpp"

#include <algorithm>

namespace nvcre::trainjob {
namespace json = boost::json;
using jsonkit::ensure_object;
using jsonkit::ensure_path;
using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;

namespace {

const json::array* patch_jobs(const json::value& patch) {
  const json::object* object = patch.if_object();
  return object == nullptr
             ? nullptr
             : find_array(*object, {"trainingRuntimeSpec", "template", "spec", "replicatedJobs"});
}

json::array& ensure_array(json::object& parent, std::string_view key) {
  json::value& slot = parent[key];
  if (!slot.is_array()) slot = json::array();
  return slot.get_array();
}

// The controller's runtimePatch, appended when the spec has none yet: the Trainer applies patches
// in order, so ours (written last) wins over catalog and user patches for the fields it sets.
json::object& controller_patch(json::object& spec) {
  json::array& patches = ensure_array(spec, "runtimePatches");
  for (auto& patch : patches) {
    if (const json::object* object = patch.if_object();
        object != nullptr && find_string(object, "manager") != nullptr &&
        *find_string(object, "manager") == kControllerPatchManager) {
      return patch.get_object();
    }
  }
  patches.push_back(json::object{{"manager", kControllerPatchManager}});
  return patches.back().get_object();
}

// The pod template of replicated job `name` inside the controller patch, created on demand.
json::object& controller_pod_template(json::object& spec, std::string_view name) {
  json::object& patch_spec =
      ensure_path(controller_patch(spec), {"trainingRuntimeSpec", "template", "spec"});
  json::array& jobs = ensure_array(patch_spec, "replicatedJobs");
  auto it = std::find_if(jobs.begin(), jobs.end(), [&](const json::value& job) {
    const json::string* job_name = find_string(job.if_object(), "name");
    return job_name != nullptr && *job_name == name;
  });
  if (it == jobs.end()) {
    jobs.push_back(json::object{{"name", name}});
    it = jobs.end() - 1;
  }
  return ensure_path(it->get_object(), {"template", "spec", "template"});
}

bool condition_true(const json::value& train_job, std::string_view type,
                    const json::object** found) {
  const json::object* object = train_job.if_object();
  const json::array* conditions =
      object == nullptr ? nullptr : find_array(*object, {"status", "conditions"});
  if (conditions == nullptr) return false;
  for (const auto& condition : *conditions) {
    const json::object* c = condition.if_object();
    const json::string* t = find_string(c, "type");
    const json::string* s = find_string(c, "status");
    if (t != nullptr && *t == type && s != nullptr && *s == "True") {
      *found = c;
      return true;
    }
  }
  return false;
}

std::string string_or_empty(const json::object* object, std::string_view key) {
  const json::string* s = find_string(object, key);
  return s == nullptr ? std::string() : std::string(*s);
}

}  // namespace

std::string workload_name(std::string_view job_name) {
  return k8s::truncate_name(std::string(job_name) + "-workload", k8s::kMaxWorkloadNameLength);
}

std::vector<std::string> patch_targets(const json::object& spec) {
  std::vector<std::string> names;
  if (const json::value* patches = spec.if_contains("runtimePatches");
      patches != nullptr && patches->is_array()) {
    for (const auto& patch : patches->get_array()) {
      const json::array* jobs = patch_jobs(patch);
      if (jobs == nullptr) continue;
      for (const auto& job : *jobs) {
        const json::string* name = find_string(job.if_object(), "name");
        if (name != nullptr && std::find(names.begin(), names.end(), *name) == names.end())
          names.emplace_back(*name);
      }
    }
  }
  if (names.empty()) names.emplace_back(kDefaultTarget);
  return names;
}

std::string worker_target(const json::object& spec) {
  for (auto& name : patch_targets(spec)) {
    if (name != kLauncherTarget) return name;
  }
  return std::string(kDefaultTarget);
}

bool has_launcher_target(const json::object& spec) {
  const auto names = patch_targets(spec);
  return std::find(names.begin(), names.end(), kLauncherTarget) != names.end();
}

void add_worker_pod_label(json::object& spec, std::string_view key, std::string_view value) {
  json::object& pod_template = controller_pod_template(spec, worker_target(spec));
  ensure_path(pod_template, {"metadata", "labels"})[key] = value;
}

void set_node_affinity(json::object& spec, const json::value& node_affinity) {
  for (const auto& name : patch_targets(spec)) {
    ensure_path(controller_pod_template(spec, name), {"spec", "affinity"})["nodeAffinity"] =
        node_affinity;
  }
}

json::object hostname_node_affinity(const std::vector<std::string>& nodes) {
  json::array values;
  for (const auto& node : nodes) values.emplace_back(node);
  json::object requirement{
      {"key", platform::kHostnameLabel}, {"operator", "In"}, {"values", std::move(values)}};
  json::object term{{"matchExpressions", json::array{std::move(requirement)}}};
  return json::object{{"requiredDuringSchedulingIgnoredDuringExecution",
                       json::object{{"nodeSelectorTerms", json::array{std::move(term)}}}}};
}

void append_tolerations(json::object& spec, const json::array& tolerations) {
  for (const auto& name : patch_targets(spec)) {
    json::array& existing =
        ensure_array(ensure_object(controller_pod_template(spec, name), "spec"), "tolerations");
    for (const auto& toleration : tolerations) existing.push_back(toleration);
  }
}

void set_num_nodes(json::object& spec, std::int64_t nodes) {
  ensure_object(spec, "trainer")["numNodes"] = nodes;
}

std::int64_t nodes_required(const json::object& spec) {
  const json::object* trainer = find_object(spec, {"trainer"});
  const json::value* nodes = trainer == nullptr ? nullptr : trainer->if_contains("numNodes");
  if (nodes == nullptr || !nodes->is_number())
    throw AdapterError("trainJob.trainer.numNodes is not set");
  return nodes->to_number<std::int64_t>();
}

json::value build_train_job(const api::Job& job,
                            const std::map<std::string, std::string>& workload_labels) {
  if (!job.spec.workload.trainJob) throw AdapterError("no workload type specified");
  json::object spec = *job.spec.workload.trainJob;  // deep copy: the Job's spec is never touched
  add_worker_pod_label(spec, kJobLabel, job.metadata.name);

  json::object labels;
  for (const auto& [key, value] : workload_labels) labels[key] = value;
  labels[kManagedByLabel] = kManagedByValue;
  labels[kJobLabel] = job.metadata.name;
  json::object owner = k8s::owner_reference(api::kApiVersion, api::Job::kKind, job.metadata.name,
                                            job.metadata.uid, true);
  json::object metadata{{"name", workload_name(job.metadata.name)},
                        {"namespace", job.metadata.namespace_},
                        {"labels", std::move(labels)},
                        {"ownerReferences", json::array{std::move(owner)}}};
  return json::object{{"apiVersion", kApiVersion},
                      {"kind", kKind},
                      {"metadata", std::move(metadata)},
                      {"spec", std::move(spec)}};
}

WorkloadState workload_state(const json::value& train_job) {
  const json::object* condition = nullptr;
  if (condition_true(train_job, "Failed", &condition)) {
    return {WorkloadPhase::Failed, string_or_empty(condition, "reason"),
            string_or_empty(condition, "message")};
  }
  if (condition_true(train_job, "Complete", &condition)) {
    return {WorkloadPhase::Succeeded, string_or_empty(condition, "reason"),
            string_or_empty(condition, "message")};
  }
  const json::object* object = train_job.if_object();
  const json::object* spec = object == nullptr ? nullptr : find_object(*object, {"spec"});
  const json::value* suspend = spec == nullptr ? nullptr : spec->if_contains("suspend");
  if (suspend != nullptr && suspend->is_bool() && suspend->get_bool()) {
    // A suspended TrainJob waits for admission (Kueue clears suspend): it is pending, not running.
    // NVCRE's adapter words it so, naming the controller that manages it.
    const std::string managed_by = string_or_empty(spec, "managedBy");
    std::string message = "TrainJob is suspended (spec.suspend=true), waiting for it to be resumed";
    if (!managed_by.empty()) message += "; managed by " + managed_by;
    return {WorkloadPhase::Pending, "Suspended", std::move(message)};
  }
  return {WorkloadPhase::Running, {}, {}};
}

}  // namespace nvcre::trainjob
