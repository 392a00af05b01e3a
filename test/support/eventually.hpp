#pragma once
// Polls `condition` every `period` until it holds or `deadline` passes; returns whether it held.
// The deadline is a liveness bound (something that never happens must end the test), not a
// performance check: it is generous on purpose.
#include <chrono>
#include <thread>

namespace nvcre::test {

template <class Condition>
bool eventually(Condition&& condition,
                std::chrono::steady_clock::duration deadline = std::chrono::seconds(30),
                std::chrono::steady_clock::duration period = std::chrono::milliseconds(20)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    std::this_thread::sleep_for(period);
  }
  return condition();
}

}  // namespace nvcre::test
