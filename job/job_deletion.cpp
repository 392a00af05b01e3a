#include "job/job_deletion.hpp"
#include "k8s/meta.hpp"

#include "api/conditions.hpp"
#include "k8s/rfc3339.hpp"
#include "job/job_status.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::job::detail {
namespace json = boost::json;

namespace {

// Pods still holding resources: phase not Succeeded/Failed (a terminating pod counts).
bool has_active_pods(const JobPass& pass) {
  return std::any_of(pass.pods.begin(), pass.pods.end(), [](const json::value* pod) {
    const std::string phase = string_at(*pod, {"status", "phase"});
    return phase != "Succeeded" && phase != "Failed";
  });
}

// Drain start: the latest of the Job's True Failed/HardwareFailed/Succeeded transitions and its
// deletionTimestamp.
k8s::Clock::time_point drain_start(const api::Job& job) {
  auto start =
      k8s::parse_rfc3339(job.metadata.deletionTimestamp).value_or(k8s::Clock::time_point{});
  if (job.status) {
    for (std::string_view type :
         {api::kConditionFailed, std::string_view(api::condition_type::kHardwareFailed),
          api::kConditionSucceeded}) {
      const api::Condition* c = api::find_condition(job.status->conditions, type);
      if (c == nullptr || c->status != "True") continue;
      if (auto at = k8s::parse_rfc3339(c->lastTransitionTime)) start = std::max(start, *at);
    }
  }
  return start;
}

}  // namespace

k8s::Action finalizers_patch(const api::Job& job, std::vector<std::string> finalizers) {
  json::array list;
  for (auto& finalizer : finalizers) list.emplace_back(std::move(finalizer));
  json::object metadata{{"resourceVersion", job.metadata.resourceVersion},
                        {"finalizers", std::move(list)}};
  return k8s::make_action(k8s::ActionVerb::MergePatch, job_ref(job),
                          json::object{{"metadata", std::move(metadata)}});
}

void reconcile_deletion(JobPass& pass) {
  const api::Job& job = pass.job;
  const auto& finalizers = job.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kJobFinalizer) == finalizers.end()) return;

  const std::string name = job.status && job.status->workloadRef
                               ? job.status->workloadRef->name
                               : trainjob::workload_name(job.metadata.name);
  const k8s::ObjectRef ref{std::string(trainjob::kApiVersion), std::string(trainjob::kKind),
                           job.metadata.namespace_, name};
  const ObjectLookup workload = pass.read(ref);
  if (workload.state == ObjectLookup::State::Unknown) return;

  bool waiting = false;
  // A holder this Job does not control is never deleted nor waited for.
  if (workload.state == ObjectLookup::State::Present &&
      k8s::is_controlled_by(*workload.object, job.metadata.uid)) {
    waiting = true;
    if (!k8s::is_being_deleted(*workload.object)) {
      k8s::Action remove = k8s::delete_owned(ref, k8s::uid_of(*workload.object));
      remove.propagation = k8s::Propagation::Background;
      pass.result.plan.actions.push_back(std::move(remove));
    }
  }
  waiting = waiting || has_active_pods(pass);
  // Bounded wait: after the grace the finalizer goes anyway (owner references let GC finish).
  if (waiting && pass.in.now - drain_start(job) < kPodDrainGrace) {
    pass.result.plan.requeue_after = k8s::kDefaultRequeue;
    return;
  }
  std::vector<std::string> rest;
  for (const auto& finalizer : finalizers) {
    if (finalizer != kJobFinalizer) rest.push_back(finalizer);
  }
  pass.result.plan.actions.push_back(finalizers_patch(job, std::move(rest)));
}

}  // namespace nvcre::job::detail
