// Workflow deletion: every Job first (their finalizers hold until workload pods drain), then
// the dependencies in reverse creation order after an ownership check, then the finalizer.
#include "workflow/dependency_plan.hpp"
#include "k8s/meta.hpp"
#include "workflow/volume_reclaim.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace nvcre::workflow::detail {
namespace json = boost::json;

namespace {

// Job names the status knows of (current groups and earlier iterations): what a live read can
// confirm when the cache lists none.
std::set<std::string> recorded_job_names(const api::WorkflowStatus& status) {
  std::set<std::string> names;
  if (!status.orchestration) return names;
  for (const auto& g : status.orchestration->groups) {
    if (g.jobRef) names.insert(g.jobRef->name);
  }
  for (const auto& iteration : status.orchestration->iterationHistory) {
    for (const auto& g : iteration.groups) {
      if (!g.jobName.empty()) names.insert(g.jobName);
    }
  }
  return names;
}

}  // namespace

bool stamp_claim_volume(Pass& pass, const k8s::ObjectRef& target, const json::value& object) {
  if (target.kind != kPersistentVolumeClaimKind) return true;
  const std::string volume = bound_volume_name(object);
  if (volume.empty()) return true;
  const auto answer = pass.live({"v1", "PersistentVolume", "", volume});
  if (!answer.known) return false;
  if (answer.object != nullptr) {
    if (auto stamp = stamp_volume(*answer.object, pass.uid())) pass.add(std::move(*stamp));
  }
  return true;
}

k8s::ReconcilePlan reconcile_deletion(const reconcile::Context& input,
                                      const WorkflowDocument& doc) {
  const auto& finalizers = doc.workflow.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), kWorkflowFinalizer) == finalizers.end())
    return {};
  Pass pass(input, doc);
  if (input.outcome &&
      !is_own_conflict(*input.outcome, pass.self_ref())) {  // a failed delete: back off, re-read
    k8s::ReconcilePlan plan;
    plan.error = describe_outcome(*input.outcome);
    return plan;
  }

  // Phase 1: Jobs labelled with this Workflow (cache; a cache that lists none is confirmed live).
  std::vector<json::value> jobs;
  for (const json::value* job : input.cache.list(
           api::kApiVersion, "Job", pass.ns(),
           k8s::LabelSelector::from_match_labels({{std::string(kWorkflowLabel), pass.name()}}))) {
    jobs.push_back(*job);
  }
  if (jobs.empty()) {
    for (const auto& name : recorded_job_names(pass.status)) {
      auto answer = pass.live({std::string(api::kApiVersion), "Job", pass.ns(), name});
      if (answer.object != nullptr) jobs.push_back(*answer.object);
    }
    if (pass.waiting_for_live()) return pass.finish();
  }
  if (!jobs.empty()) {
    for (const auto& job : jobs) {
      if (!k8s::is_being_deleted(job))
        pass.delete_object(k8s::object_ref_of(job), k8s::uid_of(job));
    }
    pass.requeue(k8s::kDefaultRequeue);  // wait until every Job (and its pods) is gone
    return pass.finish();
  }

  // Phase 2: dependencies, newest first; foreign holders of a recorded name are left alone. An
  // owned claim's volume is stamped before the claim goes (phase 3 flips only stamped volumes).
  const auto& refs = pass.status.dependencyRefs;
  for (auto it = refs.rbegin(); it != refs.rend(); ++it)
    pass.current({it->apiVersion, it->kind, it->namespace_, it->name});
  if (pass.waiting_for_live()) return pass.finish();
  for (auto it = refs.rbegin(); it != refs.rend(); ++it) {
    const k8s::ObjectRef target{it->apiVersion, it->kind, it->namespace_, it->name};
    const json::value* object = pass.current(target).object;
    if (object == nullptr || !owned_for_cleanup(*object, pass.uid(), pass.name())) continue;
    if (!stamp_claim_volume(pass, target, *object)) return pass.finish();
    pass.delete_object(target, k8s::uid_of(*object));
  }

  // Phase 3: the volumes of its claims, once released, go from Retain to Delete.
  if (declares_claims(pass.doc.workflow.spec)) {
    const auto volumes = pass.collection({"v1", "PersistentVolume", "", ""});
    if (volumes.state == reconcile::CollectionLookup::State::Unknown) return pass.finish();
    if (volumes.state == reconcile::CollectionLookup::State::Listed) {
      auto reclaim = reclaim_volumes(*volumes.list, pass.uid());
      for (auto& flip : reclaim.flips) pass.add(std::move(flip));
      if (reclaim.wait) {
        pass.requeue(kVolumeRequeue);  // a claim is still going: its volume is not released yet
        return pass.finish();
      }
    }
  }

  // Phase 4: the finalizer.
  pass.add(k8s::remove_finalizer_patch(pass.self_ref(), *input.object, kWorkflowFinalizer));
  return pass.finish();
}

}  // namespace nvcre::workflow::detail
