#pragma once
// The blocking driver of the pure Reflector (k8s/reflector.hpp). run() occupies a thread the caller
// provides and carries out every action of the state machine with a RestClient: paginated LIST,
// WATCH from a resourceVersion with bookmarks and the machine's timeout, backoff waits. It turns
// the JSON it receives into ReflectedObjects and hands each batch of store deltas to a callback, in
// order, on that thread (the actor layer will run this inside a blocking actor and forward the
// batches as messages).
//
// Stopping: stop() may be called from any thread. It ends a backoff wait at once and closes an
// open watch at once (WatchOptions::stop), idle or not. A LIST in flight finishes first (bounded by
// the client's request timeout; RestClient::shutdown() ends it at once). request_relist() ends a
// wait or a watch the same way and starts a fresh full list.
//
// Errors: give the runner a client with max_retries = 0, so 429 / 5xx reach the reflector, whose
// waits honour Retry-After and can be interrupted; the client's own retries sleep uninterruptibly.
#include "k8s/reflector.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace nvcre::k8s {

// Wire JSON -> reflector input. Missing fields become empty strings (never a throw): a malformed
// object is the server's bug and must not stop the reflector.
// Key "namespace/name", or "name" without a namespace; resourceVersion from metadata.
ReflectedObject to_reflected_object(boost::json::value object);
// items[], metadata.resourceVersion and metadata.continue of a list response.
ListPage to_list_page(boost::json::value list);
// Takes the event's object (the watch hands each event over once).
ReflectedEvent to_reflected_event(WatchEvent&& event);
RequestFailure to_request_failure(const ApiError& error);
// A request that got no answer (TransportError, WatchDecodeError): code 0.
RequestFailure to_request_failure(const std::exception& error);

struct ReflectorRunnerOptions {
  ResourceRef resource;
  std::string ns;  // "" = all namespaces (ignored for cluster-scoped resources)
  std::string label_selector;
  std::string field_selector;
  ReflectorConfig reflector;
  std::uint64_t seed = 0;  // backoff jitter and watch timeouts
  // Upper bound on the timeoutSeconds sent with a watch (nullopt: the machine's 5-10 min). The
  // watch is simply re-opened from the last resourceVersion, so a low cap costs a request, no
  // relist.
  std::optional<std::chrono::seconds> max_watch_timeout;
};

// Counters, readable from any thread while run() is going.
struct ReflectorRunnerStats {
  std::uint64_t lists = 0;         // full lists started (first pages requested)
  std::uint64_t list_pages = 0;    // pages received
  std::uint64_t watches = 0;       // watch requests made
  std::uint64_t watch_events = 0;  // events received, bookmarks and errors included
  std::uint64_t failures = 0;      // failed requests and ERROR events
  std::uint64_t waits = 0;         // backoff waits started
};

class ReflectorRunner {
 public:
  // Called with each non-empty batch of deltas, on the thread inside run(). Must not throw.
  using DeltaSink = std::function<void(std::vector<Delta>)>;

  ReflectorRunner(RestClient& client, ReflectorRunnerOptions options, DeltaSink sink);
  ReflectorRunner(const ReflectorRunner&) = delete;
  ReflectorRunner& operator=(const ReflectorRunner&) = delete;

  // Lists, watches and retries until stop(); then returns. Call once, from one thread.
  void run();
  // Thread-safe and idempotent; run() returns soon after (see the header comment).
  void stop();
  // Thread-safe: a fresh full list begins soon (Reflector::relist), and `done` is called on the
  // loop's thread once the sink has been given the Replaced delta of a list begun after this
  // call, that is a view no older than the call. Never called if the runner stops first.
  void request_relist(std::function<void()> done);
  bool stop_requested() const { return stopping_.load(); }

  ReflectorRunnerStats stats() const;
  // True once the first full list has been delivered (the Replaced delta has gone to the sink).
  bool has_synced() const { return synced_.load(); }

 private:
  ReflectorStep perform(const ReflectorAction& action);
  ReflectorStep list(const ListRequest& request);
  ReflectorStep watch(const WatchRequest& request);
  ReflectorStep wait(const WaitRequest& request);
  void deliver(std::vector<Delta> deltas);
  // Moves the waiting relist requests to the list about to begin; false when there are none.
  bool take_relist_requests();
  static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }

  RestClient& client_;
  ReflectorRunnerOptions options_;
  DeltaSink sink_;
  Reflector reflector_;  // touched only by the thread inside run()

  std::atomic<bool> stopping_{false};
  std::stop_source watch_stop_;  // closes the open watch at once (stop, relist); under wake_mutex_
  std::atomic<bool> synced_{false};
  std::mutex wake_mutex_;  // with wake_: interrupts waits on stop()
  std::condition_variable wake_;
  std::atomic<bool> relist_requested_{false};
  std::vector<std::function<void()>> relist_waiting_;  // under wake_mutex_: no list begun yet
  std::vector<std::function<void()>> relist_listing_;  // loop thread only: the list under way

  std::atomic<std::uint64_t> lists_{0}, list_pages_{0}, watches_{0}, watch_events_{0}, failures_{0},
      waits_{0};
};

}  // namespace nvcre::k8s
