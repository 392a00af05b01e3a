#include "workloadrun/reconcile_pass.hpp"

#include "api/codec.hpp"
#include "api/conditions.hpp"
#include "certification/reconcile_common.hpp"

namespace nvcre::workloadrun::detail {

using api::true_execution_type;

k8s::EventRecord Pass::event(std::string_view type, std::string_view reason, std::string note) const {
  return certification::make_event(self, object, type, reason, std::move(note));
}

StatusUpdate::StatusUpdate(const Pass& pass)
    : observed_(pass.run.status.value_or(api::WorkloadRunStatus{})),
      status_(observed_),
      now_(k8s::format_rfc3339(pass.in.now)) {}

void StatusUpdate::set_execution(std::string_view type, std::string_view reason, std::string_view message) {
  for (std::string_view each : {api::kConditionInProgress, api::kConditionSucceeded, api::kConditionFailed}) {
    api::Condition condition{.type = std::string(each), .status = "False",
                             .reason = std::string(api::inactive_reason::kSuperseded)};
    if (each == type) {
      condition.status = "True";
      condition.reason = std::string(reason);
      condition.message = std::string(message);
    }
    api::set_condition(status_.conditions, std::move(condition), now_);
  }
}

void StatusUpdate::set_condition(std::string_view type, std::string_view reason, std::string_view message) {
  api::set_condition(status_.conditions,
                     api::Condition{.type = std::string(type), .status = "True", .reason = std::string(reason),
                                    .message = std::string(message)},
                     now_);
}

void StatusUpdate::commit(Pass& pass) {
  if (status_ == observed_) return;
  pass.plan.actions.push_back(certification::status_patch(pass.self, pass.object, api::encode_value(status_)));
  const auto before = true_execution_type(observed_.conditions);
  const auto after = true_execution_type(status_.conditions);
  if (after && before != after) {
    const api::Condition* condition = api::find_condition(status_.conditions, *after);
    pass.plan.events.push_back(pass.event(api::transition_event_type(*after), condition->reason, condition->message));
  }
}

}  // namespace nvcre::workloadrun::detail
