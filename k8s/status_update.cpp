#include "k8s/status_update.hpp"

#include "k8s/backoff.hpp"

#include <random>
#include <stdexcept>
#include <thread>

namespace nvcre::k8s {

int retry_on_conflict(const ConflictRetry& retry, const std::function<void()>& attempt) {
  if (retry.steps < 1) throw std::invalid_argument("retry_on_conflict: steps must be at least 1");
  // Jitter only spreads writers apart; it needs no reproducible seed.
  thread_local std::mt19937_64 engine{std::random_device{}()};
  auto pause = retry.duration;
  for (int made = 1;; ++made) {
    try {
      attempt();
      return made;
    } catch (const ApiError& error) {
      if (!is_conflict(error) || made >= retry.steps) throw;
    }
    const double extra = unit_interval(engine) * retry.jitter * static_cast<double>(pause.count());
    std::this_thread::sleep_for(pause + std::chrono::nanoseconds(static_cast<std::int64_t>(extra)));
    pause = std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(pause.count()) * retry.factor));
  }
}

StatusUpdateResult update_status_with_retry(RestClient& client, const ResourceRef& ref, const std::string& ns,
                                            const std::string& name, const StatusMutation& mutate,
                                            const ConflictRetry& retry) {
  StatusUpdateResult result;
  retry_on_conflict(retry, [&] {
    ++result.attempts;
    result.object = client.get(ref, ns, name);
    result.written = false;
    if (!mutate(result.object)) return;
    // The object still carries the resourceVersion just read: a write in between makes this 409.
    result.object = client.update_status(ref, ns, result.object);
    result.written = true;
  });
  return result;
}

}  // namespace nvcre::k8s
