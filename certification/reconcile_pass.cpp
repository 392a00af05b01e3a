#include "certification/reconcile_pass.hpp"

#include "api/codec.hpp"
#include "api/conditions.hpp"
#include "certification/reconcile_common.hpp"

namespace nvcre::certification::detail {

using api::true_execution_type;

k8s::EventRecord Pass::event(std::string_view type, std::string_view reason, std::string note) const {
  return make_event(self, object, type, reason, std::move(note));
}

const k8s::ActionOutcome* Pass::outcome_for(k8s::ActionVerb verb, const k8s::ObjectRef& target) const {
  const auto& outcome = in.outcome;
  return outcome && outcome->action.verb == verb && outcome->action.target == target ? &*outcome : nullptr;
}

StatusUpdate::StatusUpdate(const Pass& pass)
    : observed_(pass.certification.status.value_or(api::CertificationStatus{})),
      status_(observed_),
      generation_(pass.certification.metadata.generation.value_or(0)),
      now_(k8s::format_rfc3339(pass.in.now)) {}

void StatusUpdate::set_condition(std::string_view type, std::string_view reason, std::string_view message) {
  api::set_exclusive_condition(status_.conditions, type, reason, message, generation_, now_);
}

void StatusUpdate::commit(Pass& pass) {
  if (status_ == observed_) return;
  pass.plan.actions.push_back(status_patch(pass.self, pass.object, api::encode_value(status_)));
  const auto before = true_execution_type(observed_.conditions);
  const auto after = true_execution_type(status_.conditions);
  if (after && before != after) {
    const api::Condition* condition = api::find_condition(status_.conditions, *after);
    pass.plan.events.push_back(
        pass.event(api::transition_event_type(*after), condition->reason, condition->message));
  }
}

}  // namespace nvcre::certification::detail
