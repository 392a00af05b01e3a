#include "reconcile/contract.hpp"

namespace nvcre::reconcile {

std::string pod_log_key(const PodLogWant& want) {
  // '\n' cannot occur in a name, a container or a timestamp, so the key is unambiguous.
  std::string key = want.ns + "\n" + want.pod + "\n" + want.container + "\n" + want.since_time;
  key += "\n" + std::to_string(want.tail_lines) + "\n" + std::to_string(want.limit_bytes) + "\n";
  key += want.previous ? 'p' : '-';
  key += want.timestamps ? 't' : '-';
  key += want.whole_log ? 'w' : '-';
  return key;
}

const k8s::ActionOutcome* outcome_of(const Context& context, k8s::ActionVerb verb,
                                     const k8s::ObjectRef& target) {
  const auto& last = context.outcome;
  if (last && last->action.verb == verb && last->action.target == target) return &*last;
  if (verb != k8s::ActionVerb::Create || context.held == nullptr) return nullptr;
  for (const auto& held : *context.held)
    if (held.action.target == target) return &held;
  return nullptr;
}

}  // namespace nvcre::reconcile
