#include "certification/reconcile_pass.hpp"

#include "api/codec.hpp"
#include "api/conditions.hpp"
#include "reconcile/kit.hpp"

namespace nvcre::certification::detail {

StatusUpdate::StatusUpdate(const Pass& pass)
    : observed_(pass.certification.status.value_or(api::CertificationStatus{})),
      status_(observed_),
      generation_(pass.certification.metadata.generation.value_or(0)),
      now_(k8s::format_rfc3339(pass.in.now)) {}

void StatusUpdate::set_condition(std::string_view type, std::string_view reason,
                                 std::string_view message) {
  api::set_exclusive_condition(status_.conditions, type, reason, message, generation_, now_);
}

void StatusUpdate::set_independent_condition(std::string_view type, std::string_view status,
                                             std::string_view reason, std::string_view message) {
  api::set_condition(status_.conditions,
                     api::Condition{.type = std::string(type),
                                    .status = std::string(status),
                                    .observedGeneration = generation_,
                                    .reason = std::string(reason),
                                    .message = std::string(message)},
                     now_);
}

void StatusUpdate::commit(Pass& pass, bool transition_event) {
  if (status_ == observed_) return;
  reconcile::commit_status_change(pass, api::encode_value(status_), observed_.conditions,
                                  status_.conditions, transition_event);
}

}  // namespace nvcre::certification::detail
