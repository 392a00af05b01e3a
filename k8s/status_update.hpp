#pragma once
// Conflict-retried status writes (client-go retry.RetryOnConflict): read the object live, let the
// caller re-apply its intent, PUT the status subresource with the resourceVersion just read, and on
// 409 Conflict start over from a fresh read. Nothing is lost: every write is checked against the
// version it was computed from, and a conflict recomputes it from the newer one.
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <string>

namespace nvcre::k8s {

// client-go retry.DefaultRetry: 5 attempts, 10 ms apart, factor 1, jitter 0.1. Under heavy
// contention (many writers of one object) raise `steps`.
struct ConflictRetry {
  int steps = 5;  // attempts in all, >= 1
  std::chrono::nanoseconds duration = std::chrono::milliseconds(10);  // first pause
  double factor = 1.0;  // each pause is the previous one times factor
  double jitter = 0.1;  // a pause d becomes d + u * jitter * d, u uniform in [0, 1)
};

// Calls `attempt` until it returns without throwing a Conflict ApiError (is_conflict), at most
// retry.steps times, pausing between attempts. The last Conflict propagates when attempts run
// out; any other exception propagates at once. Returns the number of attempts made.
int retry_on_conflict(const ConflictRetry& retry, const std::function<void()>& attempt);

// Changes `object.status` in place (the whole object is passed so the decision may read spec and
// metadata.generation); returns false when nothing needs writing.
using StatusMutation = std::function<bool(boost::json::value& object)>;

struct StatusUpdateResult {
  boost::json::value object;  // the server's answer to the write, or the object as read when no write
  bool written = false;       // false: the mutation was a no-op on the latest version
  int attempts = 0;           // reads made (1 + conflicts retried)
};

// GET, mutate, PUT .../status; on Conflict re-GET and re-mutate (so `mutate` must be a pure
// function of the object it is given: it may run several times). NotFound and other errors
// propagate unchanged.
StatusUpdateResult update_status_with_retry(RestClient& client, const ResourceRef& ref, const std::string& ns,
                                            const std::string& name, const StatusMutation& mutate,
                                            const ConflictRetry& retry = {});

}  // namespace nvcre::k8s
