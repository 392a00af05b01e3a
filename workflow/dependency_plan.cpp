#include "workflow/dependency_plan.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"

#include "api/codec.hpp"
#include "k8s/naming.hpp"
#include "platform/gang_scheduling.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <deque>
#include <set>
#include <tuple>

namespace nvcre::workflow {
namespace json = boost::json;

namespace {

void walk_strings(const json::value& value, std::vector<std::string>& out) {
  if (const auto* s = value.if_string()) {
    out.emplace_back(*s);
  } else if (const auto* o = value.if_object()) {
    for (const auto& [key, child] : *o) {
      (void)key;
      walk_strings(child, out);
    }
  } else if (const auto* a = value.if_array()) {
    for (const auto& child : *a) walk_strings(child, out);
  }
}

std::vector<std::string> strings_of(const api::DependencySpec& dependency) {
  return collect_strings(json::value(dependency.resource));
}

bool never_job_scoped(const api::DependencySpec& dependency) {
  return dependency_kind(dependency).rfind("Cluster", 0) == 0;
}

// Visits the metadata objects of every runtime patch whose label / annotation maps are metadata.
template <class Visit>
void for_each_runtime_patch_metadata(json::value& job_spec, Visit&& visit) {
  auto* spec = job_spec.if_object();
  auto* workload = spec == nullptr ? nullptr : spec->if_contains("workload");
  auto* train_job = workload == nullptr || !workload->is_object()
                        ? nullptr
                        : workload->get_object().if_contains("trainJob");
  auto* patches = train_job == nullptr || !train_job->is_object()
                      ? nullptr
                      : train_job->get_object().if_contains("runtimePatches");
  if (patches == nullptr || !patches->is_array()) return;
  auto child = [](json::value* v, std::string_view key) -> json::value* {
    return v == nullptr || !v->is_object() ? nullptr : v->get_object().if_contains(key);
  };
  for (std::size_t i = 0; i < patches->get_array().size(); ++i) {
    json::value* template_ =
        child(child(&patches->get_array()[i], "trainingRuntimeSpec"), "template");
    visit(child(template_, "metadata"), i, SIZE_MAX, 0);
    json::value* jobs = child(child(template_, "spec"), "replicatedJobs");
    if (jobs == nullptr || !jobs->is_array()) continue;
    for (std::size_t j = 0; j < jobs->get_array().size(); ++j) {
      json::value* job_template = child(&jobs->get_array()[j], "template");
      visit(child(job_template, "metadata"), i, j, 1);
      visit(child(child(child(job_template, "spec"), "template"), "metadata"), i, j, 2);
    }
  }
}

json::value classification_document(const api::JobSpec& job_spec) {
  api::JobSpec copy = job_spec;
  copy.workloadMetadata.reset();
  json::value document = api::encode(copy);
  for_each_runtime_patch_metadata(document,
                                  [](json::value* metadata, std::size_t, std::size_t, int) {
                                    if (metadata == nullptr || !metadata->is_object()) return;
                                    metadata->get_object().erase("labels");
                                    metadata->get_object().erase("annotations");
                                  });
  return document;
}

}  // namespace

std::vector<std::string> collect_strings(const json::value& value) {
  std::vector<std::string> out;
  walk_strings(value, out);
  return out;
}

bool is_resource_name(std::string_view text) {
  if (text.size() < 3 || text.size() > 253) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(text.front()) || !alnum(text.back())) return false;
  bool letter = false;
  for (char c : text) {
    if (!alnum(c) && c != '-' && c != '.') return false;
    letter = letter || (c >= 'a' && c <= 'z');
  }
  return letter;
}

std::string dependency_name(const api::DependencySpec& dependency) {
  return jsonkit::string_of(jsonkit::find_object(dependency.resource, {"metadata"}), "name");
}

std::string dependency_kind(const api::DependencySpec& dependency) {
  const json::value* kind = dependency.resource.if_contains("kind");
  return kind != nullptr && kind->is_string() ? std::string(kind->get_string()) : std::string();
}

ClassifiedDependencies classify_dependencies(const std::vector<api::DependencySpec>& dependencies,
                                             const api::JobSpec& job_spec) {
  ClassifiedDependencies out;
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < dependencies.size(); ++i) {
    if (auto name = dependency_name(dependencies[i]); !name.empty()) by_name[name] = i;
  }
  std::map<std::string, std::vector<std::size_t>>
      sharing;  // resource-name-like string -> dependencies
  for (std::size_t i = 0; i < dependencies.size(); ++i) {
    if (never_job_scoped(dependencies[i])) continue;
    for (const auto& s : strings_of(dependencies[i])) {
      if (is_resource_name(s) && by_name.count(s) == 0) sharing[s].push_back(i);
    }
  }
  std::vector<bool> job_scoped(dependencies.size(), false);
  std::deque<std::size_t> queue;
  auto promote = [&](std::size_t i) {
    if (job_scoped[i] || never_job_scoped(dependencies[i])) return;
    job_scoped[i] = true;
    queue.push_back(i);
  };
  for (const auto& s : collect_strings(classification_document(job_spec))) {
    if (auto it = by_name.find(s); it != by_name.end()) promote(it->second);
  }
  while (!queue.empty()) {
    const std::size_t i = queue.front();
    queue.pop_front();
    for (const auto& s : strings_of(dependencies[i])) {
      if (auto it = by_name.find(s); it != by_name.end()) promote(it->second);
      if (auto it = sharing.find(s); it != sharing.end()) {
        for (std::size_t peer : it->second) promote(peer);
      }
    }
  }
  for (std::size_t i = 0; i < dependencies.size(); ++i) {
    (job_scoped[i] ? out.job_scoped : out.workflow_scoped).push_back(dependencies[i]);
  }
  return out;
}

std::vector<api::DependencySpec> order_dependencies(std::vector<api::DependencySpec> dependencies) {
  const std::size_t n = dependencies.size();
  if (n <= 1) return dependencies;
  std::map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < n; ++i) {
    if (auto name = dependency_name(dependencies[i]); !name.empty()) by_name[name] = i;
  }
  std::vector<std::set<std::size_t>> dependents(n);  // j -> dependencies that mention j's name
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::set<std::size_t> needs;
    for (const auto& s : strings_of(dependencies[i])) {
      if (auto it = by_name.find(s); it != by_name.end() && it->second != i)
        needs.insert(it->second);
    }
    for (std::size_t j : needs) dependents[j].insert(i);
    waiting[i] = needs.size();
  }
  std::deque<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  std::vector<bool> placed(n, false);
  std::vector<api::DependencySpec> out;
  while (!ready.empty()) {
    const std::size_t i = ready.front();
    ready.pop_front();
    out.push_back(dependencies[i]);
    placed[i] = true;
    std::vector<std::size_t> newly_ready;
    for (std::size_t d : dependents[i]) {
      if (--waiting[d] == 0) newly_ready.push_back(d);
    }
    std::sort(newly_ready.begin(), newly_ready.end());
    ready.insert(ready.end(), newly_ready.begin(), newly_ready.end());
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!placed[i]) out.push_back(dependencies[i]);  // a cycle: the rest keep input order
  }
  return out;
}

std::string job_dependency_suffix(std::int64_t total_groups, bool multiple_iterations,
                                  std::string_view group, std::int64_t iteration,
                                  std::string_view workflow_name) {
  const std::string hash = k8s::extract_hash(workflow_name);
  if (!multiple_iterations && total_groups <= 1 && iteration <= 1) return "-" + hash + "-job";
  return "-" + hash + "-" + std::string(group) + "-iter-" + std::to_string(iteration);
}

std::map<std::string, std::string> job_dependency_replacements(
    const std::vector<api::DependencySpec>& job_scoped, std::string_view suffix) {
  std::set<std::string> names;
  for (const auto& dependency : job_scoped) {
    if (auto name = dependency_name(dependency); !name.empty()) names.insert(name);
  }
  std::map<std::string, std::size_t> counts;  // in how many dependencies a shared string appears
  for (const auto& dependency : job_scoped) {
    std::set<std::string> seen;
    for (const auto& s : strings_of(dependency)) {
      if (is_resource_name(s) && names.count(s) == 0 && seen.insert(s).second) ++counts[s];
    }
  }
  auto renamed = [&](const std::string& name) {
    return k8s::truncate_name(name + std::string(suffix), k8s::kMaxDnsLabelLength);
  };
  std::map<std::string, std::string> replacements;
  for (const auto& dependency : job_scoped) {
    const std::string name = dependency_name(dependency);
    if (name.empty()) continue;
    replacements[name] = renamed(name);
    for (const auto& s : strings_of(dependency)) {
      if (s != name && counts.count(s) && counts[s] >= 2 && !replacements.count(s))
        replacements[s] = renamed(s);
    }
  }
  return replacements;
}

json::value rename_strings(const json::value& value,
                           const std::map<std::string, std::string>& replacements) {
  auto renamed = [&](std::string_view text) -> std::string {
    auto it = replacements.find(std::string(text));
    return it == replacements.end() ? std::string(text) : it->second;
  };
  if (const auto* s = value.if_string()) return json::value(renamed(*s));
  if (const auto* o = value.if_object()) {
    json::object out;
    for (const auto& [key, child] : *o) out[renamed(key)] = rename_strings(child, replacements);
    return out;
  }
  if (const auto* a = value.if_array()) {
    json::array out;
    for (const auto& child : *a) out.push_back(rename_strings(child, replacements));
    return out;
  }
  return value;
}

api::JobSpec rename_job_spec(const api::JobSpec& spec,
                             const std::map<std::string, std::string>& replacements) {
  api::JobSpec renameable = spec;
  renameable.workloadMetadata.reset();
  json::value original = api::encode(renameable);
  json::value renamed = rename_strings(original, replacements);
  // Put back the runtime-patch label / annotation maps (renaming never changes the shape).
  std::map<std::tuple<std::size_t, std::size_t, int>, json::object> kept;
  for_each_runtime_patch_metadata(
      original, [&](json::value* metadata, std::size_t i, std::size_t j, int level) {
        if (metadata != nullptr && metadata->is_object())
          kept[{i, j, level}] = metadata->get_object();
      });
  for_each_runtime_patch_metadata(
      renamed, [&](json::value* metadata, std::size_t i, std::size_t j, int level) {
        auto it = kept.find({i, j, level});
        if (metadata == nullptr || !metadata->is_object() || it == kept.end()) return;
        for (std::string_view key : {"labels", "annotations"}) {
          if (const json::value* before = it->second.if_contains(key))
            metadata->get_object()[key] = *before;
        }
      });
  api::JobSpec out = api::decode<api::JobSpec>(renamed, "spec");
  out.workloadMetadata = spec.workloadMetadata;
  // LogProfiles are cluster-scoped objects of their own, never job-scoped copies: a profile name
  // that happens to equal a string the copies share (an `app` label, say) must not be renamed.
  if (out.goodputMeasurement && spec.goodputMeasurement)
    out.goodputMeasurement->logProfileRef = spec.goodputMeasurement->logProfileRef;
  if (out.bandwidthMeasurement && spec.bandwidthMeasurement)
    out.bandwidthMeasurement->logProfileRef = spec.bandwidthMeasurement->logProfileRef;
  return out;
}

PreparedJobDependencies prepare_job_dependencies(const api::WorkflowSpec& spec,
                                                 const api::JobSpec& job_spec,
                                                 std::string_view workflow_name,
                                                 std::int64_t total_groups, std::string_view group,
                                                 std::int64_t iteration) {
  PreparedJobDependencies out{job_spec, spec.dependencies, {}};
  ClassifiedDependencies classified = classify_dependencies(spec.dependencies, job_spec);
  if (classified.job_scoped.empty()) return out;
  const auto job_scoped = order_dependencies(classified.job_scoped);
  const bool multiple_iterations = spec.orchestration.iterations.value_or(1) > 1;
  const auto replacements = job_dependency_replacements(
      job_scoped,
      job_dependency_suffix(total_groups, multiple_iterations, group, iteration, workflow_name));
  if (replacements.empty()) return out;
  out.effective = classified.workflow_scoped;
  for (const auto& dependency : job_scoped) {
    json::object renamed =
        rename_strings(json::value(dependency.resource), replacements).as_object();
    // A queue label equal to a dependency name must survive the blind rename.
    renamed = platform::preserve_scheduling_fields(dependency.resource, std::move(renamed),
                                                   spec.gangScheduler);
    out.copies.push_back({std::move(renamed), dependency.when});
  }
  out.effective.insert(out.effective.end(), out.copies.begin(), out.copies.end());
  out.spec = rename_job_spec(job_spec, replacements);
  return out;
}

bool is_cluster_scoped_kind(std::string_view kind) {
  static const std::set<std::string_view> known = {
      "Namespace", "PersistentVolume", "StorageClass", "PriorityClass", "CustomResourceDefinition",
      "Node",      "ResourceSlice",    "DeviceClass",  "RuntimeClass",  "IngressClass"};
  return kind.rfind("Cluster", 0) == 0 || known.count(kind) != 0;
}

json::object dependency_object(const json::object& resource, std::string_view workflow_namespace,
                               std::string_view workflow_name, std::string_view workflow_uid,
                               const std::optional<json::object>& owner) {
  json::object object = resource;
  const json::value* kind = object.if_contains("kind");
  const bool cluster_scoped =
      kind != nullptr && kind->is_string() && is_cluster_scoped_kind(kind->get_string());
  json::value& metadata_slot = object["metadata"];
  if (!metadata_slot.is_object()) metadata_slot = json::object();
  json::object& metadata = metadata_slot.get_object();
  const json::value* ns = metadata.if_contains("namespace");
  if (!cluster_scoped && (ns == nullptr || !ns->is_string() || ns->get_string().empty())) {
    metadata["namespace"] = workflow_namespace;
  }
  if (owner && !cluster_scoped) {
    json::value& refs = metadata["ownerReferences"];
    if (!refs.is_array()) refs = json::array();
    const bool present =
        std::any_of(refs.get_array().begin(), refs.get_array().end(), [&](const json::value& ref) {
          return ref.is_object() && ref.get_object().if_contains("uid") != nullptr &&
                 ref.get_object().at("uid") == owner->at("uid");
        });
    if (!present) refs.get_array().push_back(*owner);
  }
  json::value& labels = metadata["labels"];
  if (!labels.is_object()) labels = json::object();
  labels.get_object()[kWorkflowLabel] = workflow_name;
  json::value& annotations = metadata["annotations"];
  if (!annotations.is_object()) annotations = json::object();
  annotations.get_object()[kWorkflowUidAnnotation] = workflow_uid;
  return object;
}

namespace {

const json::object* metadata_of(const json::value& object) {
  return jsonkit::object_at(object, {"metadata"});
}

std::string metadata_map_value(const json::value& object, std::string_view map,
                               std::string_view key) {
  const json::object* metadata = metadata_of(object);
  const json::value* m = metadata == nullptr ? nullptr : metadata->if_contains(map);
  const json::value* v =
      m == nullptr || !m->is_object() ? nullptr : m->get_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

bool owned_by_workflow(const json::value& object, std::string_view workflow_uid) {
  if (workflow_uid.empty()) return false;
  return k8s::has_owner(object, workflow_uid) ||
         metadata_map_value(object, "annotations", kWorkflowUidAnnotation) == workflow_uid;
}

bool owned_for_cleanup(const json::value& object, std::string_view workflow_uid,
                       std::string_view workflow_name) {
  return owned_by_workflow(object, workflow_uid) ||
         metadata_map_value(object, "labels", kWorkflowLabel) == workflow_name;
}

}  // namespace nvcre::workflow
