#include "k8s/reflector.hpp"

#include <algorithm>
#include <utility>

namespace nvcre::k8s {

using std::chrono::nanoseconds;
using TimePoint = std::chrono::steady_clock::time_point;

bool is_resource_expired(const RequestFailure& error) {
  // 410 is what the apiserver sends; Expired/Gone reasons and the "too old resource version"
  // text also appear inside ERROR events whose code may be missing (kubernetes#35068).
  return error.code == 410 || error.reason == "Expired" || error.reason == "Gone" ||
         error.message.find("too old resource version") != std::string::npos;
}

Reflector::Reflector(ReflectorConfig config, std::uint64_t seed)
    // Separate streams for backoff jitter and watch timeouts, so adding a draw to one does not
    // shift the other; the constant only decorrelates the two seeds.
    : config_(std::move(config)),
      backoff_(config_.backoff, seed ^ 0x9E3779B97F4A7C15ULL),
      engine_(seed) {
  config_.page_size = std::max<std::int64_t>(1, config_.page_size);
}

std::optional<TimePoint> Reflector::next_deadline() const {
  switch (phase_) {
    case Phase::WaitingToList:
    case Phase::WaitingToWatch:
      return wait_until_;
    case Phase::Watching:
      return watch_deadline_;
    case Phase::Idle:
    case Phase::Listing:
      return std::nullopt;
  }
  return std::nullopt;
}

ReflectorStep Reflector::start(TimePoint now) {
  if (phase_ != Phase::Idle) return {};
  return begin_list(now);
}

ReflectorStep Reflector::relist(TimePoint now) { return begin_list(now); }

ReflectorStep Reflector::begin_list(TimePoint) {
  // Always a fresh, consistent list (resourceVersion ""): it is paginated by the server and
  // cannot be "too old". Continuation pages carry only the token, as the API requires.
  phase_ = Phase::Listing;
  continue_token_.clear();
  list_buffer_.clear();
  return {{}, ListRequest{config_.page_size, "", ""}};
}

ReflectorStep Reflector::begin_watch(TimePoint now) {
  phase_ = Phase::Watching;
  // Uniform in [min, 2*min) whole seconds, like client-go's minWatchTimeout * (1 + rand).
  const auto min_seconds = std::max<std::int64_t>(1, config_.min_watch_timeout.count());
  const auto timeout_seconds =
      min_seconds +
      static_cast<std::int64_t>(unit_interval(engine_) * static_cast<double>(min_seconds));
  watch_started_ = now;
  watch_deadline_ = now + std::chrono::seconds(timeout_seconds) + config_.watch_hang_grace;
  watch_events_ = 0;
  return {{}, WatchRequest{last_resource_version_, timeout_seconds, true}};
}

ReflectorStep Reflector::back_off(Phase then, const RequestFailure* error, TimePoint now) {
  nanoseconds wait = backoff_.next(now);
  if (error && error->retry_after) wait = std::max(wait, *error->retry_after);
  phase_ = then;
  wait_until_ = now + wait;
  if (then == Phase::WaitingToList) list_buffer_.clear();  // a partial list is never applied
  return {{}, WaitRequest{wait}};
}

Delta Reflector::upsert(ReflectedObject object) {
  auto [slot, inserted] = known_.insert_or_assign(object.key, object.resource_version);
  (void)slot;
  return Delta{inserted ? DeltaType::Added : DeltaType::Updated, std::move(object.key),
               std::move(object.resource_version), std::move(object.object), false};
}

ReflectorStep Reflector::finish_list(std::string list_resource_version) {
  ReflectorStep step;
  step.deltas.reserve(list_buffer_.size() + 1);
  std::map<std::string, std::string> previous = std::move(known_);
  known_.clear();
  for (auto& item : list_buffer_) {
    // Updated when the store already had the key (before this list, or earlier in it).
    const bool existed = previous.contains(item.key) || known_.contains(item.key);
    known_.insert_or_assign(item.key, item.resource_version);
    step.deltas.push_back(Delta{existed ? DeltaType::Updated : DeltaType::Added,
                                std::move(item.key), std::move(item.resource_version),
                                std::move(item.object), false});
  }
  list_buffer_.clear();
  // Whatever we knew and the list no longer has was deleted while we were not watching.
  for (auto& [key, resource_version] : previous) {
    if (known_.contains(key)) continue;
    step.deltas.push_back(Delta{DeltaType::Deleted, key, resource_version, nullptr, true});
  }
  step.deltas.push_back(Delta{DeltaType::Replaced, "", list_resource_version, nullptr, false});
  last_resource_version_ = std::move(list_resource_version);
  has_synced_ = true;
  return step;
}

ReflectorStep Reflector::on_list_page(ListPage page, TimePoint now) {
  if (phase_ != Phase::Listing) return {};  // a late answer to a superseded request
  for (auto& item : page.items) list_buffer_.push_back(std::move(item));
  if (!page.continue_token.empty()) {
    continue_token_ = std::move(page.continue_token);
    return {{}, ListRequest{config_.page_size, continue_token_, ""}};
  }
  ReflectorStep step = finish_list(std::move(page.resource_version));
  step.action = begin_watch(now).action;
  return step;
}

ReflectorStep Reflector::on_list_error(const RequestFailure& error, TimePoint now) {
  if (phase_ != Phase::Listing) return {};
  // An expired continue token only means this snapshot is gone (etcd compaction): start over at
  // once. A 410 on a first page cannot be fixed by retrying quickly, so it backs off like any
  // error.
  if (is_resource_expired(error) && !continue_token_.empty()) return begin_list(now);
  return back_off(Phase::WaitingToList, &error, now);
}

ReflectorStep Reflector::on_watch_event(ReflectedEvent event, TimePoint now) {
  if (phase_ != Phase::Watching) return {};  // stale events of a watch we already abandoned
  ++watch_events_;
  ReflectorStep step;
  switch (event.type) {
    case WatchEventType::Added:
    case WatchEventType::Modified: {
      if (!event.object.resource_version.empty())
        last_resource_version_ = event.object.resource_version;
      // Added vs Updated follows what the store holds, not the event name: after a relist, an
      // ADDED for a key we already have is an update of it.
      step.deltas.push_back(upsert(std::move(event.object)));
      break;
    }
    case WatchEventType::Deleted: {
      if (!event.object.resource_version.empty())
        last_resource_version_ = event.object.resource_version;
      known_.erase(event.object.key);
      step.deltas.push_back(Delta{DeltaType::Deleted, std::move(event.object.key),
                                  std::move(event.object.resource_version),
                                  std::move(event.object.object), false});
      break;
    }
    case WatchEventType::Bookmark:
      // Progress only: the resourceVersion to resume from, no object changed.
      if (!event.object.resource_version.empty())
        last_resource_version_ = event.object.resource_version;
      break;
    case WatchEventType::Error:
      if (is_resource_expired(event.error))
        return back_off(Phase::WaitingToList, &event.error, now);
      return back_off(Phase::WaitingToWatch, &event.error, now);
  }
  return step;
}

ReflectorStep Reflector::on_watch_closed(TimePoint now) {
  if (phase_ != Phase::Watching) return {};
  if (watch_events_ == 0 && now - watch_started_ < config_.min_healthy_watch) {
    return back_off(Phase::WaitingToWatch, nullptr, now);
  }
  return begin_watch(now);
}

ReflectorStep Reflector::on_watch_error(const RequestFailure& error, TimePoint now) {
  if (phase_ != Phase::Watching) return {};
  if (is_resource_expired(error)) return back_off(Phase::WaitingToList, &error, now);
  // No HTTP status: the stream itself broke (a cut connection, a torn chunk). Once the watch was
  // healthy that is an end like any other, as client-go's stream watcher ends on an EOF: backing
  // off instead left an informer blind for 30-60 s after every cut once cuts were frequent.
  if (error.code == 0) return on_watch_closed(now);
  return back_off(Phase::WaitingToWatch, &error, now);
}

ReflectorStep Reflector::on_timer(TimePoint now) {
  switch (phase_) {
    case Phase::WaitingToList:
    case Phase::WaitingToWatch:
      if (now < wait_until_) return {{}, WaitRequest{wait_until_ - now}};
      return phase_ == Phase::WaitingToList ? begin_list(now) : begin_watch(now);
    case Phase::Watching:
      // The server should have closed the watch at timeoutSeconds; far past that, the
      // connection is presumed dead. Nothing was lost: resume from the last resourceVersion.
      if (now >= watch_deadline_) return begin_watch(now);
      return {};
    case Phase::Idle:
    case Phase::Listing:
      return {};
  }
  return {};
}

}  // namespace nvcre::k8s
