// Closing an iteration (snapshot, delete its Jobs, reset the groups) and the final status
// with the succeeded-nodes ConfigMap. Jobs, measurements and dependencies of the last iteration are
// kept until the Workflow is deleted: the report reads them.
#include "api/conditions.hpp"
#include "workflow/node_results.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::workflow::detail {
namespace json = boost::json;
namespace reason = api::workflow_reason;

namespace {

api::IterationResult snapshot(const api::OrchestrationStatus& orch) {
  api::IterationResult result;
  result.iteration = orch.currentIteration.value_or(1);
  for (const auto& g : orch.groups) {
    result.groups.push_back(
        {g.name, g.phase, g.jobRef ? g.jobRef->name : "", g.startTime, g.completionTime});
  }
  return result;
}

// Whether the Job behind any Failed group of the final iteration has `type` True (uncached Jobs are
// skipped: a missing read must not assert a cause nobody observed).
bool failed_group_job_has(const Pass& pass, std::string_view type) {
  for (const auto& g : pass.status.orchestration->groups) {
    if (g.phase != api::group_phase::kFailed || !g.jobRef) continue;
    const json::value* job = pass.in.cache.get(job_ref_of(pass, *g.jobRef));
    if (job == nullptr) continue;
    try {
      const auto decoded = api::decode<api::Job>(*job);
      if (decoded.status && api::condition_is_true(decoded.status->conditions, type)) return true;
    } catch (const api::DecodeError&) {
    }
  }
  return false;
}

std::vector<std::string> succeeded_group_nodes(const api::OrchestrationStatus& orch) {
  std::vector<std::string> nodes;
  for (const auto& g : orch.groups) {
    if (g.phase == api::group_phase::kSucceeded)
      nodes.insert(nodes.end(), g.nodes.begin(), g.nodes.end());
  }
  return nodes;
}

void final_status(Pass& pass) {
  const auto& orch = pass.orch();
  std::int64_t failed = 0;
  for (const auto& iteration : orch.iterationHistory) {
    failed += std::count_if(iteration.groups.begin(), iteration.groups.end(),
                            [](const auto& g) { return g.phase == api::group_phase::kFailed; });
  }
  failed += std::count_if(orch.groups.begin(), orch.groups.end(),
                          [](const auto& g) { return g.phase == api::group_phase::kFailed; });
  if (!write_node_results(pass, NodeResultKind::Succeeded, succeeded_group_nodes(orch), {}))
    return pass.discard_status_changes();  // the count must not move twice
  const std::string iterations = std::to_string(pass.iterations());
  if (failed == 0) {
    pass.set_condition(api::kConditionSucceeded, reason::kJobCompleted,
                       "All " + iterations + " iterations completed successfully");
    return;
  }
  const bool hardware = failed_group_job_has(pass, api::condition_type::kHardwareFailed);
  const bool validation = failed_group_job_has(pass, api::kConditionValidationFailed);
  std::string message =
      std::to_string(failed) + " groups failed across " + iterations + " iterations";
  if (hardware) message += "; hardware failures occurred on one or more nodes";
  if (validation) {  // independent quality signal, kept even when hardware wins the Failed reason
    api::set_condition(pass.status.conditions,
                       api::Condition{std::string(api::kConditionValidationFailed), "True",
                                      pass.workflow().metadata.generation.value_or(0), "",
                                      std::string(reason::kJobValidationFailed),
                                      "One or more Jobs failed performance threshold validation"},
                       pass.now_text);
  }
  pass.fail(hardware     ? reason::kJobHardwareFailed
            : validation ? reason::kJobValidationFailed
                         : reason::kIterationsFailed,
            message);
}

}  // namespace

bool write_node_results(Pass& pass, NodeResultKind kind, const std::vector<std::string>& succeeded,
                        const std::vector<api::FailedNode>& failed) {
  const bool succeeded_kind = kind == NodeResultKind::Succeeded;
  const k8s::ObjectRef ref{"v1", "ConfigMap", pass.ns(),
                           succeeded_kind ? succeeded_nodes_configmap_name(pass.uid())
                                          : failed_nodes_configmap_name(pass.uid())};
  auto& status_ref = succeeded_kind ? pass.status.succeededNodesRef : pass.status.failedNodesRef;
  const json::value* existing = pass.in.cache.get(ref);
  if (const auto* outcome = pass.outcome_for(k8s::ActionVerb::Create, ref)) {
    if (outcome->reason != "AlreadyExists" || !outcome->live_holder) {
      pass.set_error(describe_outcome(*outcome));
      return false;
    }
    existing = &*outcome->live_holder;
  }
  std::optional<NodeResultWrite> write;
  try {
    write = node_results_write(kind, pass.workflow(), existing, succeeded, failed);
  } catch (const std::exception&) {
    return true;  // an unreadable node-results ConfigMap must not hold back the verdict
  }
  if (!write) {
    if (existing != nullptr && (!succeeded.empty() || !failed.empty()))
      status_ref = api::TypedLocalObjectReference{std::nullopt, "ConfigMap", ref.name};
    return true;
  }
  write->action.joins_previous = true;  // node results depend on no other write of the pass
  if (write->action.verb == k8s::ActionVerb::Create) {
    if (!pass.can_create()) {
      pass.requeue(k8s::kImmediateRequeue);
      return false;
    }
    pass.add_create(std::move(write->action));
  } else {
    pass.add(std::move(write->action));
  }
  status_ref = api::TypedLocalObjectReference{std::nullopt, "ConfigMap", write->name};
  return true;
}

void complete_iteration(Pass& pass) {
  if (!pass.can_create())
    return pass.requeue(k8s::kImmediateRequeue);  // the final pass may create a ConfigMap
  if (pass.spec.orchestration.diagnose) return complete_diagnose_round(pass);
  auto& orch = pass.orch();
  const std::int64_t completed = orch.completedIterations.value_or(0) + 1;
  orch.completedIterations = completed;
  if (completed >= pass.iterations()) return final_status(pass);

  orch.iterationHistory.push_back(snapshot(orch));
  // The iteration's Jobs go before anything their pods might still use.
  for (const auto& g : orch.groups) {
    if (!g.jobRef) continue;
    const k8s::ObjectRef ref = job_ref_of(pass, *g.jobRef);
    const json::value* cached = pass.in.cache.get(ref);
    pass.delete_object(
        ref, cached == nullptr ? std::nullopt : std::optional<std::string>(k8s::uid_of(*cached)));
  }
  const bool unpinned = is_unpinned(pass.extras.placement);
  for (auto& g : orch.groups) {
    g.phase = std::string(api::group_phase::kPending);
    g.jobRef.reset();
    g.startTime.clear();
    g.completionTime.clear();
    g.retries.reset();
    if (unpinned) g.nodes.clear();
  }
  orch.currentIteration = completed + 1;
  pass.set_condition(api::kConditionInProgress, reason::kIterationCompleted,
                     "Iteration " + std::to_string(completed) + "/" +
                         std::to_string(pass.iterations()) + " completed, starting next");
  pass.requeue(k8s::kImmediateRequeue);
}

}  // namespace nvcre::workflow::detail
