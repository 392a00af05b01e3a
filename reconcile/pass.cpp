#include "reconcile/pass.hpp"

#include "api/conditions.hpp"
#include "reconcile/kit.hpp"

namespace nvcre::reconcile {

k8s::EventRecord PassBase::event(std::string_view type, std::string_view reason,
                                 std::string note) const {
  return make_event(self, object, type, reason, std::move(note));
}

const k8s::ActionOutcome* PassBase::outcome_for(k8s::ActionVerb verb,
                                                const k8s::ObjectRef& target) const {
  return outcome_of(in, verb, target);
}

void commit_status_change(PassBase& pass, boost::json::value new_status,
                          const std::vector<api::Condition>& observed,
                          const std::vector<api::Condition>& current, bool transition_event) {
  pass.plan.actions.push_back(status_patch(pass.self, pass.object, std::move(new_status)));
  if (!transition_event) return;
  const auto before = api::true_execution_type(observed);
  const auto after = api::true_execution_type(current);
  if (after && before != after) {
    const api::Condition* condition = api::find_condition(current, *after);
    pass.plan.events.push_back(
        pass.event(api::transition_event_type(*after), condition->reason, condition->message));
  }
}

}  // namespace nvcre::reconcile
