#pragma once
// When a controller lets go of a key's idle reconciler and of the memo it keeps for the key's next
// one. A reconciler that has been idle longer than `idle_reap` ends (a fleet holds thousands of
// keys, mostly idle); its memo (a measurement's sampling anchor) stays until the key has been idle
// longer than `memo_kept`. A busy key keeps both.
#include <chrono>

namespace nvcre::k8s {

struct IdleSlot {
  bool busy = false;
  bool has_actor = false;
  bool has_memo = false;
  std::chrono::steady_clock::duration idle{};
};

struct ReapLimits {
  std::chrono::steady_clock::duration idle_reap{};
  std::chrono::steady_clock::duration memo_kept{};
};

struct ReapDecision {
  bool end_actor = false;  // end the key's reconciler now
  bool forget = false;     // drop the key's slot (no actor left, no memo worth keeping)
};

ReapDecision decide_reap(const IdleSlot& slot, const ReapLimits& limits);

}  // namespace nvcre::k8s
