#include "workloadrun/reconcile_pass.hpp"

#include "api/codec.hpp"
#include "api/conditions.hpp"
#include "reconcile/kit.hpp"

namespace nvcre::workloadrun::detail {

StatusUpdate::StatusUpdate(const Pass& pass)
    : observed_(pass.run.status.value_or(api::WorkloadRunStatus{})),
      status_(observed_),
      now_(k8s::format_rfc3339(pass.in.now)) {}

void StatusUpdate::set_execution(std::string_view type, std::string_view reason,
                                 std::string_view message) {
  for (std::string_view each :
       {api::kConditionInProgress, api::kConditionSucceeded, api::kConditionFailed}) {
    api::Condition condition{.type = std::string(each),
                             .status = "False",
                             .reason = std::string(api::inactive_reason::kSuperseded)};
    if (each == type) {
      condition.status = "True";
      condition.reason = std::string(reason);
      condition.message = std::string(message);
    }
    api::set_condition(status_.conditions, std::move(condition), now_);
  }
}

void StatusUpdate::set_condition(std::string_view type, std::string_view reason,
                                 std::string_view message) {
  api::set_condition(status_.conditions,
                     api::Condition{.type = std::string(type),
                                    .status = "True",
                                    .reason = std::string(reason),
                                    .message = std::string(message)},
                     now_);
}

void StatusUpdate::commit(Pass& pass, bool transition_event) {
  if (status_ == observed_) return;
  reconcile::commit_status_change(pass, api::encode_value(status_), observed_.conditions,
                                  status_.conditions, transition_event);
}

}  // namespace nvcre::workloadrun::detail
