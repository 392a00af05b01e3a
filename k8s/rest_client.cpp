#include "k8s/rest_client.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/http_transport.hpp"

#include <boost/json.hpp>

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

// The Kubernetes side of the client: authentication (token rotation), client-side rate limits,
// 429/5xx retries with Retry-After, Status decoding, watch decoding and the REST verbs. Bytes on
// the wire are HttpTransport's business (k8s/http_transport.hpp).
namespace nvcre::k8s {
namespace json = boost::json;

namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

using Clock = std::chrono::steady_clock;

}  // namespace

struct RestClient::Impl {
  Impl(ClientConfig c, RestClientOptions o)
      : config(std::move(c)),
        options(std::move(o)),
        transport(config, TransportOptions{options.timeout, options.max_idle_connections,
                                           options.user_agent}),
        limiter(config.rate_limit),
        token(config.bearer_token) {}

  std::string current_token() {
    std::lock_guard lock(mutex);
    if (!config.token_file.empty() &&
        (!token_read || Clock::now() - *token_read > std::chrono::minutes(1))) {
      token_read = Clock::now();
      if (auto t = read_file(config.token_file); t && !trim(*t).empty()) token = trim(*t);
    }
    return token;
  }

  // What bounds one call: its timeout, whether it may retry, and the token shutdown() stops.
  struct CallLimits {
    std::chrono::milliseconds timeout;
    int max_retries;
    std::stop_token stop;
  };

  CallLimits limits_for(const RestRequest& r) {
    std::lock_guard lock(mutex);
    if (!shut_down) return {options.timeout, options.max_retries, in_flight.get_token()};
    if (later_calls_timeout <= std::chrono::milliseconds::zero()) throw cancelled(r);
    return {std::min(options.timeout, later_calls_timeout), 0, in_flight.get_token()};
  }

  TransportError cancelled(const RestRequest& r) const {
    return TransportError(transport.where(r.method, r.path) + ": " +
                          std::string(kCancelledByShutdown));
  }

  void shutdown(std::chrono::milliseconds later_timeout) {
    std::stop_source ending;
    {
      std::lock_guard lock(mutex);
      shut_down = true;
      later_calls_timeout = later_timeout;
      ending = std::exchange(in_flight, std::stop_source{});
    }
    ending.request_stop();  // outside the lock: its callbacks post closes to the connections
  }

  // Sleeps until the rate limiter's slot (or a Retry-After pause) comes; false when `stop` ended
  // the wait.
  bool wait_for_slot(const std::stop_token& stop) {
    Nanos wait{};
    {
      std::lock_guard lock(mutex);
      wait = limiter.reserve(Clock::now());
    }
    if (wait > Nanos::zero()) {
      std::mutex sleep_mutex;
      std::condition_variable_any wake;
      std::unique_lock sleep_lock(sleep_mutex);
      wake.wait_for(sleep_lock, stop, wait, [] { return false; });
    }
    return !stop.stop_requested();
  }

  RestResponse perform(const RestRequest& r) {
    const CallLimits limits = limits_for(r);
    for (int attempt = 0;; ++attempt) {
      if (!wait_for_slot(limits.stop)) throw cancelled(r);
      RestResponse res = transport.exchange(r, current_token(), limits.timeout, limits.stop);
      if (res.status >= 200 && res.status < 300) return res;
      std::optional<std::string_view> retry_after;
      if (auto it = res.headers.find("retry-after"); it != res.headers.end())
        retry_after = it->second;
      auto wait = retry_after_wait(res.status, retry_after, std::chrono::system_clock::now());
      if (wait && attempt < limits.max_retries) {
        Nanos pause = std::min<Nanos>(*wait, options.max_retry_wait);
        std::lock_guard lock(mutex);
        limiter.pause_for_retry_after(Clock::now(), pause);
        continue;  // wait_for_slot sleeps out the pause
      }
      throw refused_or_not(r, decode_api_error(res.status, res.body));
    }
  }

  // The error, reported to on_refused first when it is a 401 or 403.
  ApiError refused_or_not(const RestRequest& r, ApiError error) const {
    if ((error.code == 401 || error.code == 403) && options.on_refused)
      options.on_refused(r.method, r.path, error, r.body);
    return error;
  }

  void watch(const RestRequest& r, const std::optional<int>& timeout_seconds,
             const std::stop_token& cancel,
             const std::function<WatchControl(WatchEvent&)>& on_event) {
    // The stream ends on either stop: the watch's own (a normal return) or shutdown() (cancelled).
    const std::stop_token client_stop = limits_for(r).stop;
    std::stop_source either;
    std::stop_callback on_cancel(cancel, [&either] { either.request_stop(); });
    std::stop_callback on_shutdown(client_stop, [&either] { either.request_stop(); });
    if (!wait_for_slot(either.get_token())) {
      if (cancel.stop_requested()) return;
      throw cancelled(r);
    }
    // Idle limit between reads: the server ends the watch after timeoutSeconds; allow slack.
    const auto idle = timeout_seconds
                          ? std::chrono::milliseconds(std::chrono::seconds(*timeout_seconds + 30))
                          : std::chrono::milliseconds(std::chrono::minutes(10));
    std::string error_body;
    WatchDecoder decoder;
    bool stop = false;
    auto deliver = [&](std::vector<WatchEvent> events) {
      for (auto& e : events) {
        if (on_event(e) == WatchControl::Stop) {
          stop = true;
          return;
        }
      }
    };
    const int status = transport.stream(
        r, current_token(), idle,
        [&](int code, std::string_view bytes) {
          if (code < 200 || code >= 300) {
            error_body.append(bytes);
            return error_body.size() <= (1u << 20);
          }
          deliver(decoder.feed(bytes));
          return !stop;
        },
        either.get_token());
    if (cancel.stop_requested()) return;  // closed by the stop request: nothing more to deliver
    if (client_stop.stop_requested()) throw cancelled(r);
    if (status < 200 || status >= 300)
      throw refused_or_not(r, decode_api_error(status, error_body));
    if (!stop) deliver(decoder.finish());
  }

  ClientConfig config;
  RestClientOptions options;
  HttpTransport transport;
  std::mutex mutex;
  RequestRateLimiter limiter;
  std::string token;
  std::optional<Clock::time_point> token_read;
  std::stop_source in_flight;  // stopped by shutdown(), which puts a fresh one for later calls
  bool shut_down = false;
  std::chrono::milliseconds later_calls_timeout{0};
};

RestClient::RestClient(ClientConfig config, RestClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(options))) {}

RestClient::~RestClient() = default;

const ClientConfig& RestClient::config() const { return impl_->config; }

std::size_t RestClient::connections_opened() const { return impl_->transport.connections_opened(); }

std::string RestClient::path_for(const ResourceRef& ref, const std::string& ns,
                                 const std::string& name, const std::string& subresource) {
  if (ref.version.empty() || ref.resource.empty())
    throw std::invalid_argument("resource reference needs a version and a resource");
  std::string path =
      ref.group.empty() ? "/api/" + ref.version : "/apis/" + ref.group + "/" + ref.version;
  if (ref.namespace_scoped && !ns.empty()) path += "/namespaces/" + ns;
  path += "/" + ref.resource;
  if (!name.empty()) path += "/" + name;
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

RestResponse RestClient::request(const RestRequest& request) { return impl_->perform(request); }

void RestClient::shutdown(std::chrono::milliseconds later_calls_timeout) {
  impl_->shutdown(later_calls_timeout);
}

namespace {

json::value parse_body(const RestResponse& res, const std::string& what) {
  if (res.body.empty()) return json::value{};
  boost::system::error_code ec;
  auto v = json::parse(res.body, ec);
  if (ec) throw TransportError(what + ": response is not JSON: " + ec.message());
  return v;
}

void require_name(const ResourceRef& ref, const std::string& ns, const std::string& name,
                  const char* verb) {
  if (name.empty())
    throw std::invalid_argument(std::string(verb) + " " + ref.resource + ": name is empty");
  if (ref.namespace_scoped && ns.empty())
    throw std::invalid_argument(std::string(verb) + " " + ref.resource + "/" + name +
                                ": namespace is empty");
}

void add_write_options(RestRequest& r, const WriteOptions& o) {
  if (o.dry_run) r.query.emplace_back("dryRun", "All");
  if (!o.field_manager.empty()) r.query.emplace_back("fieldManager", o.field_manager);
}

}  // namespace

json::value RestClient::get(const ResourceRef& ref, const std::string& ns,
                            const std::string& name) {
  require_name(ref, ns, name, "get");
  RestRequest r{"GET", path_for(ref, ns, name), {}, {}, {}};
  return parse_body(request(r), r.method + " " + r.path);
}

json::value RestClient::get_status(const ResourceRef& ref, const std::string& ns,
                                   const std::string& name) {
  require_name(ref, ns, name, "get");
  RestRequest r{"GET", path_for(ref, ns, name, "status"), {}, {}, {}};
  return parse_body(request(r), r.method + " " + r.path);
}

json::value RestClient::list(const ResourceRef& ref, const std::string& ns, const ListOptions& o) {
  RestRequest r{"GET", path_for(ref, ns), {}, {}, {}};
  if (!o.label_selector.empty()) r.query.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) r.query.emplace_back("fieldSelector", o.field_selector);
  if (o.limit > 0) r.query.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) r.query.emplace_back("continue", o.continue_token);
  if (!o.resource_version.empty()) r.query.emplace_back("resourceVersion", o.resource_version);
  if (!o.resource_version_match.empty())
    r.query.emplace_back("resourceVersionMatch", o.resource_version_match);
  return parse_body(request(r), r.method + " " + r.path);
}

json::value RestClient::create(const ResourceRef& ref, const std::string& ns,
                               const json::value& object, const WriteOptions& o) {
  if (ref.namespace_scoped && ns.empty())
    throw std::invalid_argument("create " + ref.resource + ": namespace is empty");
  RestRequest r{"POST", path_for(ref, ns), {}, "application/json", json::serialize(object)};
  add_write_options(r, o);
  return parse_body(request(r), r.method + " " + r.path);
}

namespace {
json::value put(RestClient& c, const std::string& path, const json::value& object,
                const WriteOptions& o) {
  RestRequest r{"PUT", path, {}, "application/json", json::serialize(object)};
  add_write_options(r, o);
  return parse_body(c.request(r), r.method + " " + r.path);
}
json::value patch(RestClient& c, const std::string& path, const char* type, const json::value& body,
                  const WriteOptions& o) {
  RestRequest r{"PATCH", path, {}, type, json::serialize(body)};
  add_write_options(r, o);
  return parse_body(c.request(r), r.method + " " + r.path);
}
}  // namespace

json::value RestClient::update(const ResourceRef& ref, const std::string& ns,
                               const json::value& object, const WriteOptions& o) {
  const auto name = jsonkit::string_at(object, {"metadata", "name"});
  require_name(ref, ns, name, "update");
  return put(*this, path_for(ref, ns, name), object, o);
}

json::value RestClient::update_status(const ResourceRef& ref, const std::string& ns,
                                      const json::value& object, const WriteOptions& o) {
  const auto name = jsonkit::string_at(object, {"metadata", "name"});
  require_name(ref, ns, name, "update status of");
  return put(*this, path_for(ref, ns, name, "status"), object, o);
}

json::value RestClient::merge_patch(const ResourceRef& ref, const std::string& ns,
                                    const std::string& name, const json::value& body,
                                    const WriteOptions& o) {
  require_name(ref, ns, name, "patch");
  return patch(*this, path_for(ref, ns, name), "application/merge-patch+json", body, o);
}

json::value RestClient::json_patch(const ResourceRef& ref, const std::string& ns,
                                   const std::string& name, const json::value& ops,
                                   const WriteOptions& o) {
  require_name(ref, ns, name, "patch");
  return patch(*this, path_for(ref, ns, name), "application/json-patch+json", ops, o);
}

json::value RestClient::merge_patch_status(const ResourceRef& ref, const std::string& ns,
                                           const std::string& name, const json::value& body,
                                           const WriteOptions& o) {
  require_name(ref, ns, name, "patch status of");
  return patch(*this, path_for(ref, ns, name, "status"), "application/merge-patch+json", body, o);
}

json::value RestClient::remove(const ResourceRef& ref, const std::string& ns,
                               const std::string& name, const DeleteOptions& o) {
  require_name(ref, ns, name, "delete");
  json::object body{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (o.precondition_uid || o.precondition_resource_version) {
    json::object pre;
    if (o.precondition_uid) pre["uid"] = *o.precondition_uid;
    if (o.precondition_resource_version) pre["resourceVersion"] = *o.precondition_resource_version;
    body["preconditions"] = std::move(pre);
  }
  switch (o.propagation) {
    case PropagationPolicy::Default:
      break;
    case PropagationPolicy::Background:
      body["propagationPolicy"] = "Background";
      break;
    case PropagationPolicy::Foreground:
      body["propagationPolicy"] = "Foreground";
      break;
    case PropagationPolicy::Orphan:
      body["propagationPolicy"] = "Orphan";
      break;
  }
  if (o.grace_period_seconds) body["gracePeriodSeconds"] = *o.grace_period_seconds;
  if (o.dry_run) body["dryRun"] = json::array{"All"};
  RestRequest r{"DELETE", path_for(ref, ns, name), {}, "application/json", json::serialize(body)};
  if (o.dry_run) r.query.emplace_back("dryRun", "All");
  return parse_body(request(r), r.method + " " + r.path);
}

void RestClient::watch(const ResourceRef& ref, const std::string& ns, const WatchOptions& o,
                       const std::function<WatchControl(WatchEvent&)>& on_event) {
  RestRequest r{"GET", path_for(ref, ns), {{"watch", "1"}}, {}, {}};
  if (!o.resource_version.empty()) r.query.emplace_back("resourceVersion", o.resource_version);
  if (o.allow_watch_bookmarks) r.query.emplace_back("allowWatchBookmarks", "true");
  if (!o.label_selector.empty()) r.query.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) r.query.emplace_back("fieldSelector", o.field_selector);
  if (o.timeout_seconds) r.query.emplace_back("timeoutSeconds", std::to_string(*o.timeout_seconds));
  impl_->watch(r, o.timeout_seconds, o.stop, on_event);
}

}  // namespace nvcre::k8s
