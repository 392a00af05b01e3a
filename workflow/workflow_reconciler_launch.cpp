// Launching Pending groups: job-scoped dependency copies first, then the Job, for every group
// that may start, in one pass and one status write (a new ComputeDomain ends the pass: the Job
// waits 15 s for the DRA driver to publish its channel template).
#include "platform/gang_validation.hpp"
#include "k8s/meta.hpp"
#include "workflow/dependency_plan.hpp"
#include "workflow/diagnose.hpp"
#include "workflow/group_launch.hpp"
#include "job/job_reconciler.hpp"
#include "job/trainjob_adapter.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace nvcre::workflow::detail {
namespace json = boost::json;
namespace reason = api::workflow_reason;

namespace {

enum class Launch { Launched, Waiting, Stopped };

constexpr std::chrono::milliseconds kComputeDomainWait = k8s::kDefaultRequeue;

bool overlaps_running_group(const api::GroupStatus& candidate,
                            const std::vector<api::GroupStatus>& groups) {
  std::set<std::string> busy;
  for (const auto& g : groups) {
    if (group_running(g) && g.name != candidate.name) busy.insert(g.nodes.begin(), g.nodes.end());
  }
  return std::any_of(candidate.nodes.begin(), candidate.nodes.end(),
                     [&](const std::string& n) { return busy.count(n) != 0; });
}

// Succeeded or Failed True on a Job's conditions.
bool finished(const json::value& job) {
  const json::value* status = job.is_object() ? job.get_object().if_contains("status") : nullptr;
  const json::value* conditions = status == nullptr || !status->is_object()
                                      ? nullptr
                                      : status->get_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  return std::any_of(
      conditions->get_array().begin(), conditions->get_array().end(), [](const json::value& c) {
        const json::value* type = c.is_object() ? c.get_object().if_contains("type") : nullptr;
        const json::value* status = c.is_object() ? c.get_object().if_contains("status") : nullptr;
        return type != nullptr && status != nullptr && *status == "True" &&
               (*type == "Succeeded" || *type == "Failed");
      });
}

bool recorded(const Pass& pass, const api::DependencyResourceRef& ref) {
  return std::any_of(pass.status.dependencyRefs.begin(), pass.status.dependencyRefs.end(),
                     [&](const auto& r) {
                       return r.scope == ref.scope && r.groupName == ref.groupName &&
                              r.iteration == ref.iteration && r.apiVersion == ref.apiVersion &&
                              r.kind == ref.kind && r.name == ref.name;
                     });
}

// Creates (or adopts) the group's job-scoped copies in order; Launched means all exist.
Launch ensure_copies(Pass& pass, const api::GroupStatus& group, std::int64_t iteration,
                     const std::vector<api::DependencySpec>& copies) {
  // The Workflow, not the Job, owns namespaced copies: the Job's UID is unknown until after its
  // create, and ref-based cleanup removes the copies with their group either way.
  const auto owner = workflow_owner_reference(pass.workflow(), false);
  const std::string context = "failed to ensure job dependencies for group " + group.name + ": ";
  for (const auto& copy : copies) {
    json::object object =
        dependency_object(copy.resource, pass.ns(), pass.name(), pass.uid(), owner);
    api::DependencyResourceRef ref = dependency_ref_of(object);
    ref.scope = std::string(api::dependency_scope::kJob);
    ref.groupName = group.name;
    ref.iteration = iteration;
    if (recorded(pass, ref)) continue;  // created by an earlier pass
    const k8s::ObjectRef target{ref.apiVersion, ref.kind, ref.namespace_, ref.name};
    if (!pass.can_launch() && pass.outcome_for(k8s::ActionVerb::Create, target) == nullptr) {
      pass.requeue(k8s::kImmediateRequeue);
      return Launch::Waiting;
    }
    CreateOutcome created = create_dependency(pass, object, ref);
    switch (created.result) {
      case CreateResult::Adopted:
        pass.status.dependencyRefs.push_back(ref);
        continue;
      case CreateResult::Planned:
        pass.status.dependencyRefs.push_back(ref);
        if (ref.kind != "ComputeDomain" && pass.batching()) continue;
        pass.requeue(ref.kind == "ComputeDomain" ? kComputeDomainWait : k8s::kImmediateRequeue);
        return Launch::Waiting;
      case CreateResult::NoBudget:
        pass.requeue(k8s::kImmediateRequeue);
        return Launch::Waiting;
      case CreateResult::Collision:
        pass.fail(reason::kDependencyNameCollision, context + created.message);
        return Launch::Stopped;
      case CreateResult::Retry:
      case CreateResult::Rejected:
        judge_refused_dependency(pass, created.result, context + created.message,
                                 context + created.message);
        return Launch::Stopped;
    }
  }
  return Launch::Launched;
}

Launch launch_group(Pass& pass, api::GroupStatus& group) {
  auto& orch = pass.orch();
  const std::int64_t iteration = orch.currentIteration.value_or(1);
  const std::string job_name =
      group_job_name(pass.name(), pass.spec.orchestration.diagnose.has_value(),
                     pass.iterations() > 1, orch.totalGroups, group.name, iteration);
  PreparedJobDependencies prepared;
  try {
    prepared = prepare_job_dependencies(pass.spec, job_spec_from_template(pass.spec), pass.name(),
                                        orch.totalGroups, group.name, iteration);
  } catch (const std::exception& error) {
    pass.set_error("failed to ensure job dependencies for group " + group.name + ": " +
                   error.what());
    return Launch::Stopped;
  }
  // The final manifests (renamed copies, rewritten spec) must still carry the gang intent.
  api::JobTemplateSpec job_template = pass.spec.jobTemplate;
  job_template.spec = prepared.spec;
  auto gang = platform::validate_resolved_job_template(job_template, prepared.effective,
                                                       pass.doc.workflow.spec.gangScheduler);
  if (gang.conflict) {
    pass.fail(reason::kGangSchedulingConflict, gang.conflict->message);
    return Launch::Stopped;
  }

  if (Launch copies = ensure_copies(pass, group, iteration, prepared.copies);
      copies != Launch::Launched)
    return copies;

  const k8s::ObjectRef job_ref{std::string(api::kApiVersion), "Job", pass.ns(), job_name};
  const json::value* holder = pass.in.cache.get(job_ref);
  if (const auto* outcome = pass.outcome_for(k8s::ActionVerb::Create, job_ref)) {
    if (outcome->reason != "AlreadyExists") {
      pass.set_error("failed to create Job " + job_name + ": " + describe_outcome(*outcome));
      return Launch::Stopped;
    }
    if (!outcome->live_holder || outcome->live_holder->is_null()) {
      pass.set_error("failed to get existing Job " + job_name);
      return Launch::Stopped;
    }
    holder = &*outcome->live_holder;
  }
  if (holder != nullptr) {
    if (!k8s::is_controlled_by(*holder, pass.uid())) {  // never adopt a foreign Job
      if (k8s::is_being_deleted(*holder)) {
        pass.set_error("existing Job \"" + job_name + "\" in namespace \"" + pass.ns() +
                       "\" is being deleted; retrying");
      } else {
        pass.fail(reason::kJobNameCollision, "Job \"" + job_name +
                                                 "\" already exists in namespace \"" + pass.ns() +
                                                 "\" and is not controlled by Workflow \"" +
                                                 pass.name() + "\"; refusing to adopt it");
      }
      return Launch::Stopped;
    }
    // Our Job, but a previous incarnation: still finalizing, or (for a retried group) already
    // finished. Wait for it to go instead of adopting a Job that is about to disappear.
    if (k8s::is_being_deleted(*holder) || (group.retries.value_or(0) > 0 && finished(*holder))) {
      if (!k8s::is_being_deleted(*holder)) pass.delete_object(job_ref, k8s::uid_of(*holder));
      pass.requeue(k8s::kDefaultRequeue);
      return Launch::Waiting;
    }
  } else {
    if (!pass.can_launch()) {
      pass.requeue(k8s::kImmediateRequeue);
      return Launch::Waiting;
    }
    api::Job job;
    try {
      job = build_group_job(
          {pass.workflow(), pass.spec, pass.extras, group, gang.jobTemplate.spec, job_name});
    } catch (const trainjob::AdapterError& error) {
      pass.set_error(std::string("failed to get workload adapter: ") + error.what());
      return Launch::Stopped;
    }
    if (const auto& diagnosis = orch.diagnose;
        diagnosis && diagnose::forces_mnnvl_off(*diagnosis, group.nodes)) {
      diagnose::force_mnnvl_off(*job.spec.workload.trainJob);
    }
    k8s::Action create;
    create.verb = k8s::ActionVerb::Create;
    create.target = job_ref;
    create.body = api::encode(job);
    k8s::add_finalizer(create.body, job::kJobFinalizer);
    pass.add_create(std::move(create));
  }
  group.phase = std::string(api::group_phase::kRunning);
  group.jobRef = api::WorkloadReference{std::string(api::kApiVersion), "Job", job_name, pass.ns()};
  group.startTime = pass.now_text;
  return Launch::Launched;
}

}  // namespace

void launch_pending_groups(Pass& pass) {
  auto& orch = pass.orch();
  const std::int64_t max_concurrent = pass.spec.orchestration.execution.maxConcurrent.value_or(0);
  auto running = std::count_if(orch.groups.begin(), orch.groups.end(), group_running);
  bool launched = false;
  pass.batch_creates(true);
  for (auto& group : orch.groups) {
    if (group.phase != api::group_phase::kPending || pass.reset_groups.count(group.name) != 0)
      continue;
    if (max_concurrent > 0 && running >= max_concurrent) break;
    if (overlaps_running_group(group, orch.groups)) continue;  // also serialises overflow groups
    const Launch result = launch_group(pass, group);
    if (result != Launch::Launched) break;
    ++running;
    launched = true;
  }
  pass.batch_creates(false);
  if (launched) {
    pass.set_condition(api::kConditionInProgress, reason::kJobCreated,
                       "Iteration " + std::to_string(orch.currentIteration.value_or(1)) + "/" +
                           std::to_string(pass.iterations()) + ": " + std::to_string(running) +
                           " groups running");
  }
}

}  // namespace nvcre::workflow::detail
