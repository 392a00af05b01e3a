// Creating dependencies (adopt or collide on AlreadyExists) and cleaning up the
// job-scoped copies of one group and iteration.
#include "workflow/dependency_plan.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"
#include "reconcile/kit.hpp"
#include "workflow/group_launch.hpp"
#include "workflow/workflow_reconciler_pass.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::workflow::detail {
namespace json = boost::json;

namespace {

k8s::ObjectRef target_of(const api::DependencyResourceRef& ref) {
  return {ref.apiVersion, ref.kind, ref.namespace_, ref.name};
}

}  // namespace

api::DependencyResourceRef dependency_ref_of(const json::object& object) {
  api::DependencyResourceRef ref;
  ref.apiVersion = jsonkit::string_of(&object, "apiVersion");
  ref.kind = jsonkit::string_of(&object, "kind");
  const json::object* metadata = jsonkit::find_object(object, {"metadata"});
  ref.name = jsonkit::string_of(metadata, "name");
  ref.namespace_ = jsonkit::string_of(metadata, "namespace");
  return ref;
}

CreateOutcome create_dependency(Pass& pass, const json::object& object,
                                const api::DependencyResourceRef& ref) {
  const k8s::ObjectRef target = target_of(ref);
  const std::string location = ref.namespace_.empty() ? ref.name : ref.namespace_ + "/" + ref.name;
  if (const k8s::ActionOutcome* outcome = pass.outcome_for(k8s::ActionVerb::Create, target)) {
    if (outcome->reason != "AlreadyExists") {
      return {reconcile::is_transient(*outcome) ? CreateResult::Retry : CreateResult::Rejected,
              "failed to create dependency " + ref.apiVersion + "/" + ref.kind + " " + ref.name +
                  ": " + (outcome->message.empty() ? outcome->reason : outcome->message)};
    }
    if (!outcome->live_holder || outcome->live_holder->is_null()) {
      return {CreateResult::Retry,
              "failed to get existing dependency " + ref.kind + " " + ref.name};
    }
    // Never adopt blindly: only our own earlier create (owner UID or workflow-uid annotation).
    if (owned_by_workflow(*outcome->live_holder, pass.uid())) return {CreateResult::Adopted, {}};
    if (k8s::is_being_deleted(*outcome->live_holder)) {
      return {CreateResult::Retry, "dependency " + ref.kind + " \"" + location +
                                       "\" already exists but is being deleted; retrying"};
    }
    return {CreateResult::Collision, "dependency " + ref.kind + " \"" + location +
                                         "\" already exists and is not owned by Workflow \"" +
                                         pass.name() + "\"; refusing to adopt it"};
  }
  if (!pass.can_create()) return {CreateResult::NoBudget, {}};
  k8s::Action create;
  create.verb = k8s::ActionVerb::Create;
  create.target = target;
  create.body = object;
  pass.add_create(std::move(create));
  return {CreateResult::Planned, {}};
}

void judge_refused_dependency(Pass& pass, CreateResult result, const std::string& message,
                              const std::string& error) {
  if (result == CreateResult::Retry) {
    // No verdict from a fault a retry cures: say so, and retry after the error's backoff.
    const bool says_retrying = message.ends_with("; retrying");
    pass.event("Warning", api::workflow_reason::kDependencyCreationError,
               says_retrying ? message : message + "; retrying");
  } else {
    pass.fail(api::workflow_reason::kDependencyCreationError, message);
  }
  pass.set_error(error);
}

bool ensure_workflow_dependencies(Pass& pass) {
  auto classified = classify_dependencies(pass.spec.dependencies, pass.spec.jobTemplate.spec);
  const auto ordered = order_dependencies(std::move(classified.workflow_scoped));
  // Crash-resume: the first `existing` dependencies in creation order are already recorded.
  const auto existing = static_cast<std::size_t>(
      std::count_if(pass.status.dependencyRefs.begin(), pass.status.dependencyRefs.end(),
                    [](const api::DependencyResourceRef& r) {
                      return r.scope.empty() || r.scope == api::dependency_scope::kWorkflow;
                    }));
  const auto owner = workflow_owner_reference(pass.workflow(), false);
  for (std::size_t i = existing; i < ordered.size(); ++i) {
    json::object object =
        dependency_object(ordered[i].resource, pass.ns(), pass.name(), pass.uid(), owner);
    api::DependencyResourceRef ref = dependency_ref_of(object);
    ref.scope = std::string(api::dependency_scope::kWorkflow);
    CreateOutcome created = create_dependency(pass, object, ref);
    switch (created.result) {
      case CreateResult::Adopted:
        pass.status.dependencyRefs.push_back(ref);
        continue;
      case CreateResult::Planned:
        pass.status.dependencyRefs.push_back(ref);
        pass.requeue(k8s::kImmediateRequeue);
        return false;
      case CreateResult::NoBudget:
        pass.requeue(k8s::kImmediateRequeue);
        return false;
      case CreateResult::Collision:
        pass.fail(api::workflow_reason::kDependencyNameCollision, created.message);
        return false;
      case CreateResult::Retry:
      case CreateResult::Rejected:
        judge_refused_dependency(pass, created.result,
                                 "Failed to create dependency: " + created.message,
                                 created.message);
        return false;
    }
  }
  return true;
}

bool cleanup_job_dependencies(Pass& pass, std::string_view group, std::int64_t iteration) {
  auto matches = [&](const api::DependencyResourceRef& r) {
    return r.scope == api::dependency_scope::kJob && r.groupName == group &&
           r.iteration.value_or(0) == iteration;
  };
  std::vector<api::DependencyResourceRef> doomed;
  std::vector<api::DependencyResourceRef> remaining;
  for (const auto& ref : pass.status.dependencyRefs)
    (matches(ref) ? doomed : remaining).push_back(ref);
  if (doomed.empty()) return true;
  bool known = true;
  for (auto it = doomed.rbegin(); it != doomed.rend(); ++it)
    known = pass.current(target_of(*it)).known && known;
  if (!known) return false;
  // Reverse creation order: dependents go before what they reference. A foreign object with the
  // name (not ours by owner, annotation or tracking label) is skipped and forgotten, never deleted.
  // The group's first delete waits for nothing planned before it (another group's copies, the
  // node-results ConfigMap); its later ones keep the order.
  bool first = true;
  for (auto it = doomed.rbegin(); it != doomed.rend(); ++it) {
    const json::value* object = pass.current(target_of(*it)).object;
    if (object == nullptr || !owned_for_cleanup(*object, pass.uid(), pass.name())) continue;
    if (!stamp_claim_volume(pass, target_of(*it), *object)) return false;
  }
  for (auto it = doomed.rbegin(); it != doomed.rend(); ++it) {
    const json::value* object = pass.current(target_of(*it)).object;
    if (object == nullptr || !owned_for_cleanup(*object, pass.uid(), pass.name())) continue;
    pass.delete_object(target_of(*it), k8s::uid_of(*object), first);
    first = false;
  }
  pass.status.dependencyRefs = std::move(remaining);
  return true;
}

}  // namespace nvcre::workflow::detail
