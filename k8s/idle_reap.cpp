#include "k8s/idle_reap.hpp"

namespace nvcre::k8s {

ReapDecision decide_reap(const IdleSlot& slot, const ReapLimits& limits) {
  ReapDecision out;
  if (slot.busy) return out;
  out.end_actor = slot.has_actor && slot.idle > limits.idle_reap;
  const bool actor_left = slot.has_actor && !out.end_actor;
  out.forget = !actor_left && (!slot.has_memo || slot.idle > limits.memo_kept);
  return out;
}

}  // namespace nvcre::k8s
