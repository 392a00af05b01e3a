#include "workflow/group_launch.hpp"
#include "k8s/meta.hpp"

#include "k8s/naming.hpp"
#include "platform/detect.hpp"
#include "workflow/node_discovery.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace nvcre::workflow {
namespace json = boost::json;

namespace {

json::object requirement(std::string_view key, std::string_view op,
                         const std::vector<std::string>& values) {
  json::object out{{"key", key}, {"operator", op}};
  if (!values.empty()) {
    json::array list;
    for (const auto& v : values) list.emplace_back(v);
    out["values"] = std::move(list);
  }
  return out;
}

json::object toleration(std::string_view key, std::string_view op, std::string_view value,
                        std::string_view effect) {
  json::object out;
  if (!key.empty()) out["key"] = key;
  out["operator"] = op;
  if (!value.empty()) out["value"] = value;
  if (!effect.empty()) out["effect"] = effect;
  return out;
}

}  // namespace

std::string group_job_name(std::string_view workflow_name, bool diagnose, bool multiple_iterations,
                           std::int64_t total_groups, std::string_view group,
                           std::int64_t iteration) {
  std::string raw = !diagnose && !multiple_iterations && total_groups <= 1
                        ? std::string(workflow_name) + "-job"
                        : std::string(workflow_name) + "-" + std::string(group) + "-iter-" +
                              std::to_string(iteration);
  return k8s::truncate_name(raw, k8s::kMaxJobNameLength);
}

api::JobSpec job_spec_from_template(const api::WorkflowSpec& spec) {
  api::JobSpec out = spec.jobTemplate.spec;
  if (spec.validation && spec.validation->performance) {
    const auto& performance = *spec.validation->performance;
    if (performance.thresholds && !performance.thresholds->thresholds.empty()) {
      out.thresholds = performance.thresholds->thresholds;
    }
    if (!performance.measurementTimeout.empty())
      out.measurementTimeout = performance.measurementTimeout;
  }
  return out;
}

json::value node_affinity_for(const std::vector<std::string>& hostnames,
                              const std::optional<api::TargetSpec>& target,
                              const std::vector<std::string>& gpu_products) {
  std::vector<json::object> requirements;
  if (!hostnames.empty())
    requirements.push_back(requirement(platform::kHostnameLabel, "In", hostnames));
  if (target) {
    for (const auto& [key, value] : target->nodeSelector)
      requirements.push_back(requirement(key, "In", {value}));
    for (const auto& e : target->matchExpressions)
      requirements.push_back(requirement(e.key, e.operator_, e.values));
  }
  std::set<std::string> products;
  for (const auto& p : gpu_products) {
    if (!p.empty()) products.insert(p);
  }
  if (!products.empty()) {
    requirements.push_back(
        requirement(platform::kGpuProductLabel, "In", {products.begin(), products.end()}));
  }
  json::array unique;
  for (auto& r : requirements) {
    if (std::find(unique.begin(), unique.end(), json::value(r)) == unique.end())
      unique.push_back(std::move(r));
  }
  if (unique.empty()) return nullptr;
  json::object term{{"matchExpressions", std::move(unique)}};
  return json::object{{"requiredDuringSchedulingIgnoredDuringExecution",
                       json::object{{"nodeSelectorTerms", json::array{term}}}}};
}

json::array tolerations_for(const std::optional<api::TargetSpec>& target, bool has_launcher,
                            bool unpinned) {
  json::array out;
  if (target && !target->taintSelectors.empty()) {
    for (const auto& s : target->taintSelectors) {
      out.push_back(toleration(s.key, s.value.empty() ? "Exists" : "Equal", s.value, s.effect));
    }
    return out;
  }
  if (!has_launcher) return out;
  if (unpinned) {
    out.push_back(toleration("nvidia.com/gpu", "Equal", "present", "NoSchedule"));
    out.push_back(toleration("kubernetes.io/arch", "Equal", "arm64", "NoSchedule"));
  } else {
    out.push_back(toleration("", "Exists", "", ""));
  }
  return out;
}

json::object workflow_owner_reference(const api::Workflow& workflow, bool controller) {
  return k8s::owner_reference(api::kApiVersion, api::Workflow::kKind, workflow.metadata.name,
                              workflow.metadata.uid, controller);
}

api::Job build_group_job(const GroupJobInput& input) {
  const bool unpinned = is_unpinned(input.extras.placement);
  const auto& target = input.spec.orchestration.target;
  api::Job job;
  job.apiVersion = std::string(api::kApiVersion);
  job.kind = std::string(api::Job::kKind);
  job.metadata.name = input.job_name;
  job.metadata.namespace_ = input.workflow.metadata.namespace_;
  job.spec = input.job_spec;
  if (!job.spec.workload.trainJob)
    throw trainjob::AdapterError("no workload type specified in WorkloadSpec");
  json::object& train_job = *job.spec.workload.trainJob;

  std::vector<std::string> hostnames = input.group.nodes;
  if (unpinned) hostnames = target ? target->nodeNames : std::vector<std::string>{};
  if (json::value affinity = node_affinity_for(hostnames, target, input.extras.gpu_products);
      !affinity.is_null()) {
    trainjob::set_node_affinity(train_job, affinity);
  }
  if (!unpinned)
    trainjob::set_num_nodes(train_job, static_cast<std::int64_t>(input.group.nodes.size()));
  if (json::array tolerations =
          tolerations_for(target, trainjob::has_launcher_target(train_job), unpinned);
      !tolerations.empty()) {
    trainjob::append_tolerations(train_job, tolerations);
  }

  // Cordoned nodes are targets on purpose: the default "unschedulable means unhealthy" monitor
  // would fail them at once.
  if (targets_cordoned_nodes(target)) {
    job.spec.nodeHealthMonitor.reset();
  } else if (!job.spec.nodeHealthMonitor) {
    job.spec.nodeHealthMonitor = api::NodeHealthMonitor{
        api::CELNodeHealthCheck{std::string(api::kDefaultNodeHealthExpression)}};
  }

  if (const auto& meta = input.spec.jobTemplate.metadata) {
    job.metadata.labels = meta->labels;
    job.metadata.annotations = meta->annotations;
  }
  job.metadata.labels[std::string(kManagedByLabel)] = std::string(kManagedByValue);
  job.metadata.labels[std::string(api::kWorkflowLabel)] = input.workflow.metadata.name;
  job.metadata.labels[std::string(kGroupLabel)] = input.group.name;
  if (!input.group.nodes.empty())
    job.metadata.annotations[std::string(kGroupNodesAnnotation)] = join(input.group.nodes, ",");

  job.metadata.ownerReferences.push_back(
      api::decode<api::OwnerReference>(workflow_owner_reference(input.workflow, true)));
  return job;
}

}  // namespace nvcre::workflow
