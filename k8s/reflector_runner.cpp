#include "k8s/reflector_runner.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/reconcile_plan.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <variant>

namespace nvcre::k8s {

namespace json = boost::json;

ReflectedObject to_reflected_object(json::value object) {
  const std::string ns = jsonkit::string_at(object, {"metadata", "namespace"});
  const std::string name = jsonkit::string_at(object, {"metadata", "name"});
  ReflectedObject out;
  out.key = object_key(ns, name);
  out.resource_version = jsonkit::string_at(object, {"metadata", "resourceVersion"});
  out.object = std::move(object);
  return out;
}

ListPage to_list_page(json::value list) {
  ListPage page;
  page.resource_version = jsonkit::string_at(list, {"metadata", "resourceVersion"});
  page.continue_token = jsonkit::string_at(list, {"metadata", "continue"});
  if (auto* o = list.if_object())
    if (auto* items = o->if_contains("items"); items && items->is_array()) {
      page.items.reserve(items->as_array().size());
      for (auto& item : items->as_array())
        page.items.push_back(to_reflected_object(std::move(item)));
    }
  return page;
}

ReflectedEvent to_reflected_event(WatchEvent&& event) {
  ReflectedEvent out;
  out.type = event.type;
  if (event.type == WatchEventType::Error) {
    // An ERROR always has its Status decoded; the fallback only guards a hand-made event.
    out.error = event.error ? to_request_failure(*event.error)
                            : RequestFailure{500, "", "watch ERROR event", {}};
    return out;
  }
  out.object = to_reflected_object(std::move(event.object));
  return out;
}

RequestFailure to_request_failure(const ApiError& error) {
  RequestFailure out{error.code, error.reason, error.message, std::nullopt};
  if (error.retry_after_seconds > 0)
    out.retry_after = std::chrono::seconds(error.retry_after_seconds);
  return out;
}

RequestFailure to_request_failure(const std::exception& error) {
  return RequestFailure{0, "", error.what(), {}};
}

ReflectorRunner::ReflectorRunner(RestClient& client, ReflectorRunnerOptions options, DeltaSink sink)
    : client_(client),
      options_(std::move(options)),
      sink_(std::move(sink)),
      reflector_(options_.reflector, options_.seed) {}

void ReflectorRunner::stop() {
  {
    // Under the mutex, so a wait cannot check the flag and then miss the notification.
    std::lock_guard lock(wake_mutex_);
    stopping_ = true;
    watch_stop_.request_stop();
  }
  wake_.notify_all();
}

void ReflectorRunner::request_relist(std::function<void()> done) {
  {
    std::lock_guard lock(wake_mutex_);
    relist_waiting_.push_back(std::move(done));
    relist_requested_ = true;
    watch_stop_.request_stop();
  }
  wake_.notify_all();
}

bool ReflectorRunner::take_relist_requests() {
  if (!relist_requested_.load()) return false;
  std::lock_guard lock(wake_mutex_);
  relist_requested_ = false;
  for (auto& done : relist_waiting_) relist_listing_.push_back(std::move(done));
  relist_waiting_.clear();
  return true;
}

ReflectorRunnerStats ReflectorRunner::stats() const {
  return {lists_.load(),        list_pages_.load(), watches_.load(),
          watch_events_.load(), failures_.load(),   waits_.load()};
}

void ReflectorRunner::run() {
  ReflectorStep step = reflector_.start(now());
  while (!stopping_) {
    deliver(std::move(step.deltas));
    if (take_relist_requests()) {
      step = reflector_.relist(now());
      continue;
    }
    if (!step.action)
      throw std::logic_error("reflector runner: the reflector asked for no action outside a watch");
    const ReflectorAction action = std::move(*step.action);
    step = perform(action);
  }
}

void ReflectorRunner::deliver(std::vector<Delta> deltas) {
  if (deltas.empty()) return;
  const bool replaced = std::any_of(deltas.begin(), deltas.end(),
                                    [](const Delta& d) { return d.type == DeltaType::Replaced; });
  sink_(std::move(deltas));
  if (!replaced) return;
  synced_ = true;
  // A relist requested meanwhile has not begun yet (its requests wait in relist_waiting_).
  auto listed = std::move(relist_listing_);
  relist_listing_.clear();
  for (auto& done : listed) done();
}

ReflectorStep ReflectorRunner::perform(const ReflectorAction& action) {
  if (const auto* request = std::get_if<ListRequest>(&action)) return list(*request);
  if (const auto* request = std::get_if<WatchRequest>(&action)) return watch(*request);
  return wait(std::get<WaitRequest>(action));
}

ReflectorStep ReflectorRunner::list(const ListRequest& request) {
  ListOptions list_options;
  list_options.label_selector = options_.label_selector;
  list_options.field_selector = options_.field_selector;
  list_options.limit = request.limit;
  list_options.continue_token = request.continue_token;
  list_options.resource_version = request.resource_version;
  if (request.continue_token.empty()) ++lists_;
  std::optional<RequestFailure> failure;
  ListPage page;
  try {
    page = to_list_page(client_.list(options_.resource, options_.ns, list_options));
  } catch (const ApiError& error) {
    failure = to_request_failure(error);
  } catch (const TransportError& error) {
    failure = to_request_failure(error);
  }
  if (failure) {
    ++failures_;
    return reflector_.on_list_error(*failure, now());
  }
  ++list_pages_;
  return reflector_.on_list_page(std::move(page), now());
}

ReflectorStep ReflectorRunner::watch(const WatchRequest& request) {
  WatchOptions watch_options;
  watch_options.resource_version = request.resource_version;
  watch_options.label_selector = options_.label_selector;
  watch_options.field_selector = options_.field_selector;
  watch_options.allow_watch_bookmarks = request.allow_watch_bookmarks;
  {
    std::lock_guard lock(wake_mutex_);
    watch_stop_ = std::stop_source{};
    if (stopping_ || relist_requested_) watch_stop_.request_stop();
    watch_options.stop = watch_stop_.get_token();
  }
  std::int64_t timeout = request.timeout_seconds;
  if (options_.max_watch_timeout)
    timeout = std::min<std::int64_t>(timeout, options_.max_watch_timeout->count());
  watch_options.timeout_seconds = static_cast<int>(std::max<std::int64_t>(1, timeout));
  ++watches_;

  // The next action, when an event (an ERROR) ends this watch from the reflector's side.
  std::optional<ReflectorStep> ended_by_event;
  auto on_event = [&](WatchEvent& event) {
    // Checked on every event, bookmarks included.
    if (stopping_ || relist_requested_) return WatchControl::Stop;
    ++watch_events_;
    if (event.type == WatchEventType::Error) ++failures_;
    ReflectorStep step = reflector_.on_watch_event(to_reflected_event(std::move(event)), now());
    deliver(std::move(step.deltas));
    if (step.action) {
      ended_by_event = std::move(step);
      return WatchControl::Stop;
    }
    return stopping_ ? WatchControl::Stop : WatchControl::Continue;
  };

  std::optional<RequestFailure> failure;
  try {
    client_.watch(options_.resource, options_.ns, watch_options, on_event);
  } catch (const ApiError& error) {
    failure = to_request_failure(error);
  } catch (const TransportError& error) {
    failure = to_request_failure(error);
  } catch (const WatchDecodeError& error) {
    failure = to_request_failure(error);
  }
  if (ended_by_event) return std::move(*ended_by_event);
  if (relist_requested_) return {};  // run() begins the relist
  if (failure) {
    ++failures_;
    return reflector_.on_watch_error(*failure, now());
  }
  if (stopping_) return {};
  return reflector_.on_watch_closed(now());
}

ReflectorStep ReflectorRunner::wait(const WaitRequest& request) {
  ++waits_;
  {
    std::unique_lock lock(wake_mutex_);
    if (wake_.wait_for(lock, request.duration,
                       [this] { return stopping_.load() || relist_requested_.load(); }))
      return {};  // stopping, or run() begins the relist
  }
  // on_timer answers an early wake-up with the remaining wait, so the loop simply waits again.
  return reflector_.on_timer(now());
}

}  // namespace nvcre::k8s
