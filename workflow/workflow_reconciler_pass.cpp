#include "workflow/workflow_reconciler_pass.hpp"

#include "api/conditions.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace nvcre::workflow::detail {
namespace json = boost::json;

Pass::Pass(const reconcile::Context& input, WorkflowDocument document)
    : in(input), doc(std::move(document)), now_text(k8s::format_rfc3339(input.now)) {
  spec = doc.workflow.spec;
  status = doc.workflow.status.value_or(api::WorkflowStatus{});
  extras = doc.extras;
}

k8s::ObjectRef Pass::self_ref() const {
  return {std::string(api::kApiVersion), "Workflow", ns(), name()};
}

api::OrchestrationStatus& Pass::orch() {
  if (!status.orchestration) status.orchestration = api::OrchestrationStatus{};
  return *status.orchestration;
}

std::int64_t Pass::iterations() const {
  return std::max<std::int64_t>(1, spec.orchestration.iterations.value_or(1));
}

void Pass::set_condition(std::string_view type, std::string_view reason, std::string_view message) {
  const std::int64_t generation = doc.workflow.metadata.generation.value_or(0);
  auto change =
      api::set_exclusive_condition(status.conditions, type, reason, message, generation, now_text);
  if (change.transition_to) {
    event(api::transition_event_type(*change.transition_to), reason, std::string(message));
  }
}

void Pass::event(std::string_view type, std::string_view reason, std::string note) {
  event_on(self_ref(), uid(), type, reason, std::move(note));
}

void Pass::event_on(k8s::ObjectRef regarding, std::string object_uid, std::string_view type,
                    std::string_view reason, std::string note) {
  events_.push_back({std::move(regarding), std::move(object_uid), std::string(type),
                     std::string(reason), std::move(note)});
}

Pass::LiveAnswer Pass::live(const k8s::ObjectRef& ref) {
  // A watched kind's DELETED event already answers what a live read would (NotFound).
  if (in.cache.seen_deleted(ref)) return {true, nullptr};
  auto it = in.live.find(ref);
  if (it != in.live.end()) {
    used_live_ = true;
    return {true, it->second.is_null() ? nullptr : &it->second};
  }
  const bool planned = std::any_of(live_gets_.begin(), live_gets_.end(),
                                   [&](const k8s::Action& a) { return a.target == ref; });
  if (!planned) {
    k8s::Action get;
    get.verb = k8s::ActionVerb::LiveGet;
    get.target = ref;
    live_gets_.push_back(std::move(get));
  }
  return {false, nullptr};
}

Pass::LiveAnswer Pass::current(const k8s::ObjectRef& ref) {
  if (const boost::json::value* cached = in.cache.get(ref)) return {true, cached};
  return live(ref);
}

void Pass::plan_reads(k8s::ReconcilePlan reads) {
  for (auto& get : reads.actions) {
    const bool planned = std::any_of(live_gets_.begin(), live_gets_.end(),
                                     [&](const k8s::Action& a) { return a.target == get.target; });
    if (!planned) live_gets_.push_back(std::move(get));
  }
}

reconcile::CollectionLookup Pass::collection(const k8s::ObjectRef& ref) {
  k8s::ReconcilePlan reads;
  auto out = reconcile::read_collection(in, reads, ref);
  plan_reads(std::move(reads));
  if (out.state != reconcile::CollectionLookup::State::Unknown) used_live_ = true;
  return out;
}

reconcile::SliceProducts Pass::resource_slice_products(bool needed) {
  k8s::ReconcilePlan reads;
  auto out = reconcile::resource_slice_products(in, reads, needed);
  plan_reads(std::move(reads));
  if (needed && !out.waiting) used_live_ = true;
  return out;
}

const k8s::ActionOutcome* Pass::outcome_for(k8s::ActionVerb verb,
                                            const k8s::ObjectRef& target) const {
  return reconcile::outcome_of(in, verb, target);
}

void Pass::add_create(k8s::Action action) {
  created_ = true;
  actions_.push_back(std::move(action));
}

void Pass::delete_object(const k8s::ObjectRef& ref, std::optional<std::string> object_uid,
                         bool joins_previous) {
  k8s::Action del;
  del.joins_previous = joins_previous;
  del.verb = k8s::ActionVerb::Delete;
  del.target = ref;
  del.precondition_uid = std::move(object_uid);
  del.ignore_not_found = true;
  del.ignore_conflict = del.precondition_uid.has_value();  // a same-named replacement is left alone
  actions_.push_back(std::move(del));
}

void Pass::discard_status_changes() {
  status = doc.workflow.status.value_or(api::WorkflowStatus{});
  extras = doc.extras;
  events_.clear();
}

void Pass::requeue(std::chrono::milliseconds after) {
  if (!requeue_ || after < *requeue_) requeue_ = after;
}

k8s::ReconcilePlan Pass::finish() {
  k8s::ReconcilePlan plan;
  if (waiting_for_live()) {
    plan.actions = live_gets_;
    return plan;
  }
  plan.actions = std::move(actions_);
  json::value after = encode_status(status, extras);
  if (after != doc.status_json) {
    k8s::Action write;
    write.verb = k8s::ActionVerb::MergePatchStatus;
    write.target = self_ref();
    write.body = json::object{
        {"metadata", json::object{{"resourceVersion", doc.workflow.metadata.resourceVersion}}},
        {"status", merge_patch_between(doc.status_json, after)}};
    plan.actions.push_back(std::move(write));
  }
  plan.events = std::move(events_);
  plan.error = error_;
  // A terminal Workflow never restarts itself, so nothing is scheduled after the write.
  if (error_.empty() && !api::is_terminal(status.conditions)) plan.requeue_after = requeue_;
  return plan;
}

bool group_running(const api::GroupStatus& group) {
  return group.phase == api::group_phase::kRunning;
}

bool group_terminal(const api::GroupStatus& group) {
  return group.phase == api::group_phase::kSucceeded || group.phase == api::group_phase::kFailed;
}

k8s::ObjectRef job_ref_of(const Pass& pass, const api::WorkloadReference& ref) {
  return {std::string(api::kApiVersion), "Job", ref.namespace_.empty() ? pass.ns() : ref.namespace_,
          ref.name};
}

bool is_own_conflict(const k8s::ActionOutcome& outcome, const k8s::ObjectRef& workflow) {
  return outcome.code == 409 && outcome.reason != "AlreadyExists" &&
         outcome.action.target == workflow && outcome.action.verb != k8s::ActionVerb::Create &&
         outcome.action.verb != k8s::ActionVerb::Delete;
}

std::string describe_outcome(const k8s::ActionOutcome& outcome) {
  std::string text = std::string(k8s::to_string(outcome.action.verb)) + " " +
                     k8s::to_string(outcome.action.target) + ": ";
  if (!outcome.message.empty()) return text + outcome.message;
  if (!outcome.reason.empty()) return text + outcome.reason;
  return text + "HTTP " + std::to_string(outcome.code);
}

}  // namespace nvcre::workflow::detail
