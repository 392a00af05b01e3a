#include "job/job_gang_check.hpp"

#include "api/workflow.hpp"
#include "k8s/naming.hpp"
#include "platform/gang_scheduling.hpp"
#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <set>

namespace nvcre::job::detail {
namespace json = boost::json;
using jsonkit::find_object;
using jsonkit::find_string;

namespace {

const api::OwnerReference* workflow_owner(const api::Job& job) {
  for (const auto& owner : job.metadata.ownerReferences) {
    if (owner.kind == "Workflow" && owner.apiVersion == api::kApiVersion &&
        owner.controller.value_or(false)) {
      return &owner;
    }
  }
  return nullptr;
}

std::string string_or_empty(const json::string* text) {
  return text == nullptr ? std::string() : std::string(*text);
}

std::string runtime_ref_name(const api::Job& job) {
  const auto& train_job = job.spec.workload.trainJob;
  return train_job ? string_or_empty(find_string(find_object(*train_job, {"runtimeRef"}), "name"))
                   : std::string();
}

bool is_training_runtime(const api::DependencySpec& dependency) {
  return string_or_empty(find_string(&dependency.resource, "kind")) ==
         platform::kTrainingRuntimeKind;
}

std::string dependency_name(const api::DependencySpec& dependency) {
  return string_or_empty(find_string(find_object(dependency.resource, {"metadata"}), "name"));
}

// Job-scoped suffix tails this Job may carry: "-job", or "-<group>-iter-<n>" for the iterations
// the Job name and the Workflow status mention.
std::vector<std::string> copy_tails(const api::Job& job, const json::value& workflow) {
  std::vector<std::string> tails{"-job"};
  auto group = job.metadata.labels.find(std::string(kGroupLabel));
  if (group == job.metadata.labels.end()) return tails;
  std::set<std::int64_t> iterations;
  if (auto at = job.metadata.name.rfind("-iter-"); at != std::string::npos) {
    try {
      iterations.insert(std::stoll(job.metadata.name.substr(at + 6)));
    } catch (const std::exception&) {
      // a truncated Job name lost its iteration; the Workflow status below still has it
    }
  }
  if (const json::value* current =
          value_at(workflow, {"status", "orchestration", "currentIteration"});
      current != nullptr && current->is_int64()) {
    iterations.insert(current->get_int64());
  }
  if (const json::value* refs = value_at(workflow, {"status", "dependencyRefs"});
      refs != nullptr && refs->is_array()) {
    for (const auto& ref : refs->get_array()) {
      const json::value* iteration = value_at(ref, {"iteration"});
      if (string_at(ref, {"groupName"}) == group->second && iteration != nullptr &&
          iteration->is_int64()) {
        iterations.insert(iteration->get_int64());
      }
    }
  }
  for (auto n : iterations) tails.push_back("-" + group->second + "-iter-" + std::to_string(n));
  return tails;
}

// The Workflow's dependencies plus, when the Job runs on a job-scoped copy of a TrainingRuntime,
// that runtime under the copy's name (the copy differs only in renamed references, never in the
// labels and schedulerName the contract checks).
std::vector<api::DependencySpec> with_job_scoped_runtime(
    std::vector<api::DependencySpec> dependencies, const api::Job& job,
    const json::value& workflow) {
  const std::string runtime = runtime_ref_name(job);
  for (const auto& dependency : dependencies) {
    if (is_training_runtime(dependency) && dependency_name(dependency) == runtime)
      return dependencies;
  }
  const std::string workflow_name = string_at(workflow, {"metadata", "name"});
  const auto tails = copy_tails(job, workflow);
  const std::size_t count = dependencies.size();
  for (std::size_t i = 0; i < count; ++i) {
    if (!is_training_runtime(dependencies[i])) continue;
    for (const auto& tail : tails) {
      if (job_scoped_copy_name(dependency_name(dependencies[i]), workflow_name, tail) != runtime)
        continue;
      api::DependencySpec copy = dependencies[i];
      copy.resource["metadata"].as_object()["name"] = runtime;
      dependencies.push_back(std::move(copy));
      return dependencies;
    }
  }
  return dependencies;
}

}  // namespace

std::string job_scoped_copy_name(std::string_view original, std::string_view workflow_name,
                                 std::string_view tail) {
  return k8s::truncate_name(
      std::string(original) + "-" + k8s::extract_hash(workflow_name) + std::string(tail),
      k8s::kMaxDnsLabelLength);
}

GangCheck check_gang_consistency(JobPass& pass) {
  GangCheck out;
  std::optional<api::GangSchedulerSpec> intent;
  std::vector<api::DependencySpec> dependencies;
  if (const api::OwnerReference* owner = workflow_owner(pass.job)) {
    const k8s::ObjectRef ref{std::string(api::kApiVersion), "Workflow",
                             pass.job.metadata.namespace_, owner->name};
    const ObjectLookup workflow = pass.read(ref);
    if (workflow.state == ObjectLookup::State::Unknown) {
      out.waiting = true;
      return out;
    }
    // A Workflow gone or replaced (other uid) holds no intent for this Job; GC removes the Job.
    if (workflow.state == ObjectLookup::State::Present &&
        k8s::uid_of(*workflow.object) == owner->uid) {
      try {
        if (const json::value* spec = value_at(*workflow.object, {"spec", "gangScheduler"})) {
          intent = api::decode<api::GangSchedulerSpec>(*spec, "spec.gangScheduler");
        }
        if (const json::value* list = value_at(*workflow.object, {"spec", "dependencies"})) {
          dependencies = api::decode<std::vector<api::DependencySpec>>(*list, "spec.dependencies");
        }
      } catch (const std::exception& e) {
        out.error = "cannot read the gang intent of Workflow " + owner->name + ": " + e.what();
        return out;
      }
      dependencies = with_job_scoped_runtime(std::move(dependencies), pass.job, *workflow.object);
    }
  }
  auto check = platform::validate_resolved_job_template(api::JobTemplateSpec{.spec = pass.job.spec},
                                                        dependencies, intent,
                                                        platform::kSpecWorkloadLabelsPath);
  out.conflict = std::move(check.conflict);
  if (check.jobTemplate.spec.workloadMetadata)
    out.workload_labels = check.jobTemplate.spec.workloadMetadata->labels;
  return out;
}

}  // namespace nvcre::job::detail
