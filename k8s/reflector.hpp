#pragma once
// The reflector as a pure state machine (client-go tools/cache/reflector.go semantics, shaped like
// kube-rs's watcher): it never does I/O and never reads a clock. A driver (the reflector actor)
// feeds it results — list pages, watch events, a watch that ended, request errors, timer ticks —
// each with `now`, and carries out what comes back:
//   - at most one action: list(limit, continue, resourceVersion), watch(resourceVersion,
//     timeoutSeconds, allowWatchBookmarks) or wait(duration) then call on_timer; a new action
//     supersedes whatever request is still open (the driver closes an open watch);
//   - store deltas (Added / Updated / Deleted / Replaced) for the cache, in order.
//
// Behaviour:
//   - LIST is paginated (limit = page size, continue tokens); pages are buffered and applied as
//     one atomic replace when the last page arrives: Added/Updated per item, then a Deleted
//     (final state unknown) for every known key missing from the list, then Replaced. A failed
//     list never leaves the store half-replaced.
//   - WATCH starts from the list's resourceVersion with bookmarks on and a timeout drawn
//     uniformly from [5, 10) minutes (to spread reconnects). ADDED/MODIFIED/DELETED update the
//     store and the last resourceVersion; BOOKMARK only moves the resourceVersion.
//   - A watch that ends normally, or whose stream breaks without a status (a cut connection)
//     after it was healthy (an event, or open for min_healthy_watch), is re-opened at once from
//     the last resourceVersion, no relist; one that breaks sooner backs off.
//   - 410 Gone / Expired ("too old resource version"), as a request error or an ERROR event:
//     back off, then relist from resourceVersion "" and replace the store.
//   - Any other watch failure: back off, then re-watch from the last resourceVersion.
//   - A failed list: back off, then list again from the start. An expired continue token
//     restarts the list immediately (the pager's full-list fallback).
//   - Backoff is 800 ms doubling to 30 s with full jitter, reset after 2 min without failure.
//   - Resource versions are opaque strings: compared for equality only, never ordered.
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "k8s/backoff.hpp"
#include "k8s/watch_stream.hpp"  // WatchEventType, shared with the wire decoder

namespace nvcre::k8s {

// A failed request or a watch ERROR event (metav1.Status fields). A plain value, unlike the REST
// client's exception k8s::ApiError: the driver converts one into the other.
struct RequestFailure {
  int code = 0;         // HTTP status / Status.code; 0 for transport errors (refused, reset, ...)
  std::string reason;   // Status.reason, e.g. "Expired", "Gone", "TooManyRequests"
  std::string message;  // Status.message
  // A server-requested wait (429/503 Retry-After): the backoff is at least this long.
  std::optional<std::chrono::nanoseconds> retry_after;
};

// Whether the server says our resourceVersion (or continue token) is no longer available.
bool is_resource_expired(const RequestFailure& error);

// One object as the reflector needs it; the decoding layer extracts key and resourceVersion.
struct ReflectedObject {
  std::string key;               // "namespace/name", or "name" when cluster-scoped
  std::string resource_version;  // metadata.resourceVersion
  boost::json::value object;     // carried through to the deltas untouched
};

struct ListPage {
  std::vector<ReflectedObject> items;
  std::string resource_version;  // the list's metadata.resourceVersion (not the items')
  std::string continue_token;    // metadata.continue; empty on the last page
};

// A watch event as the reflector needs it (k8s::WatchEvent is the decoded wire form).
struct ReflectedEvent {
  WatchEventType type = WatchEventType::Added;
  ReflectedObject object;  // Bookmark: only resource_version is meaningful
  RequestFailure error;    // Error only: the Status object of the event
};

struct ListRequest {
  std::int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;
  bool operator==(const ListRequest&) const = default;
};

struct WatchRequest {
  std::string resource_version;
  std::int64_t timeout_seconds = 0;
  bool allow_watch_bookmarks = true;
  bool operator==(const WatchRequest&) const = default;
};

struct WaitRequest {
  std::chrono::nanoseconds duration{0};
  bool operator==(const WaitRequest&) const = default;
};

using ReflectorAction = std::variant<ListRequest, WatchRequest, WaitRequest>;

// Replaced closes a full list: the store now holds exactly the keys it was given since the list
// began (client-go Replace, and the informer's HasSynced after the first one).
enum class DeltaType { Added, Updated, Deleted, Replaced };

struct Delta {
  DeltaType type = DeltaType::Added;
  std::string key;               // empty for Replaced
  std::string resource_version;  // of the object; of the list for Replaced
  boost::json::value object;     // null for Replaced and for final-state-unknown deletes
  // A delete inferred from a relist (client-go DeletedFinalStateUnknown): the object vanished
  // while we were not watching; the cache holds its last known state.
  bool final_state_unknown = false;
};

struct ReflectorStep {
  std::vector<Delta> deltas;
  std::optional<ReflectorAction> action;  // nullopt: carry on (keep reading the open watch)
};

struct ReflectorConfig {
  std::int64_t page_size = 500;  // client-go's pager default
  std::chrono::seconds min_watch_timeout = std::chrono::minutes(5);
  BackoffConfig backoff;
  // A watch that ends sooner than this without any event is treated as a failure, so a server
  // that closes every watch at once cannot make us spin (client-go's "very short watch").
  std::chrono::nanoseconds min_healthy_watch = std::chrono::seconds(1);
  // Extra time beyond timeoutSeconds before an open but silent watch counts as hung (a
  // half-open connection would otherwise block the reflector forever).
  std::chrono::nanoseconds watch_hang_grace = std::chrono::seconds(30);
};

class Reflector {
 public:
  enum class Phase { Idle, Listing, Watching, WaitingToList, WaitingToWatch };

  explicit Reflector(ReflectorConfig config = {}, std::uint64_t seed = 0);

  // Begin with a full list. Only meaningful once; later calls return an empty step.
  ReflectorStep start(std::chrono::steady_clock::time_point now);
  // A fresh full list now, whatever is under way: an open watch or a backoff wait is abandoned
  // and a list in progress starts over. For a view that must not predate this moment (a new
  // leader's first reconciles), which a watch that lags or is backing off cannot give.
  ReflectorStep relist(std::chrono::steady_clock::time_point now);
  ReflectorStep on_list_page(ListPage page, std::chrono::steady_clock::time_point now);
  ReflectorStep on_list_error(const RequestFailure& error,
                              std::chrono::steady_clock::time_point now);
  ReflectorStep on_watch_event(ReflectedEvent event, std::chrono::steady_clock::time_point now);
  // The watch stream ended cleanly (server timeout or EOF).
  ReflectorStep on_watch_closed(std::chrono::steady_clock::time_point now);
  // Opening or reading the watch failed (HTTP error status, transport error).
  ReflectorStep on_watch_error(const RequestFailure& error,
                               std::chrono::steady_clock::time_point now);
  // A timer fired: ends a wait, or detects a hung watch. Early ticks return the remaining wait.
  ReflectorStep on_timer(std::chrono::steady_clock::time_point now);

  Phase phase() const { return phase_; }
  // When the driver should call on_timer next, if anything is time-dependent right now.
  std::optional<std::chrono::steady_clock::time_point> next_deadline() const;
  const std::string& last_sync_resource_version() const { return last_resource_version_; }
  // True once a full list has been applied (controllers start their workers after this).
  bool has_synced() const { return has_synced_; }
  // Keys currently in the store, with their resourceVersion.
  const std::map<std::string, std::string>& known_objects() const { return known_; }

 private:
  ReflectorStep begin_list(std::chrono::steady_clock::time_point now);
  ReflectorStep begin_watch(std::chrono::steady_clock::time_point now);
  ReflectorStep back_off(Phase then, const RequestFailure* error,
                         std::chrono::steady_clock::time_point now);
  ReflectorStep finish_list(std::string list_resource_version);
  Delta upsert(ReflectedObject object);

  ReflectorConfig config_;
  ExponentialBackoff backoff_;
  std::mt19937_64 engine_;  // watch timeouts
  Phase phase_ = Phase::Idle;

  std::map<std::string, std::string> known_;  // key -> resourceVersion (ordered: stable deletes)
  std::string last_resource_version_;
  bool has_synced_ = false;

  // Listing
  std::string continue_token_;
  std::vector<ReflectedObject> list_buffer_;
  // Watching
  std::chrono::steady_clock::time_point watch_started_{};
  std::chrono::steady_clock::time_point watch_deadline_{};
  std::int64_t watch_events_ = 0;
  // WaitingTo*
  std::chrono::steady_clock::time_point wait_until_{};
};

}  // namespace nvcre::k8s
