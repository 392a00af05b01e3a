#pragma once
// A synchronous Kubernetes REST client: HTTP/1.1 over TCP or TLS (Boost.Beast + OpenSSL, both
// hidden in http_transport.cpp / tls_client.cpp), keep-alive connections pooled per client,
// per-request timeouts, bearer-token auth, client-side QPS/burst (RequestRateLimiter), 429/5xx +
// Retry-After retried a bounded number of times, and every non-2xx answer thrown as ApiError
// (k8s/api_error.hpp).
//
// Threading: every method may be called from several threads at once; each call takes its own
// pooled connection. A call blocks its thread (the actor layer runs it on a blocking worker).
#include "k8s/api_error.hpp"
#include "k8s/kubeconfig.hpp"
#include "k8s/watch_stream.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

namespace nvcre::k8s {

// No answer: connect/TLS/read failure or timeout. what() names host, method and path, never
// headers.
struct TransportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Any group/version/resource. group "" is the core group (/api/v1).
struct ResourceRef {
  std::string group;
  std::string version;
  std::string resource;  // plural, lower case: "configmaps", "certifications"
  bool namespace_scoped = true;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;  // 0: no limit
  std::string continue_token;
  std::string resource_version;        // "" (most recent), "0" (any), or an RV
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
};

struct WriteOptions {
  bool dry_run = false;       // dryRun=All
  std::string field_manager;  // fieldManager=
};

enum class PropagationPolicy { Default, Background, Foreground, Orphan };

struct DeleteOptions {
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
  PropagationPolicy propagation = PropagationPolicy::Default;
  std::optional<std::int64_t> grace_period_seconds;
  bool dry_run = false;
};

struct WatchOptions {
  std::string resource_version;  // start after this RV ("" = from now, with synthetic ADDED)
  std::string label_selector;
  std::string field_selector;
  bool allow_watch_bookmarks = true;
  std::optional<int> timeout_seconds;  // server-side end of the watch
  // A stop request (from any thread) closes the connection; watch() then returns normally, even
  // while the stream is silent. Default: never stops.
  std::stop_token stop;
};

// What a watch callback returns.
enum class WatchControl { Continue, Stop };

struct RestClientOptions {
  std::chrono::milliseconds timeout{30000};  // per request (connect + send + full response)
  // Kept-alive connections held for reuse (client-go's HTTP/1.1 default per host). It must not be
  // below the number of threads calling at once (the manager's API workers): every burst would
  // close the surplus and the next one connect again.
  std::size_t max_idle_connections = 25;
  int max_retries = 5;                              // 429/5xx with Retry-After
  std::chrono::milliseconds max_retry_wait{60000};  // a longer Retry-After is clamped to this
  std::string user_agent = "nvcre";
  // Called with every request the server refuses with 401 or 403, before the ApiError is thrown:
  // a caller that cannot act without the permission should say which one it lacks
  // (describe_refusal). Called on the requesting thread; may be empty.
  std::function<void(const std::string& method, const std::string& path, const ApiError& error,
                     std::string_view request_body)>
      on_refused{};
};

// A raw response, for callers (and tests) that need more than the verbs below.
struct RestResponse {
  int status = 0;
  std::string content_type;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names (only the ones we keep)
};

struct RestRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string path;    // absolute API path, e.g. /api/v1/namespaces/x/configmaps (not encoded)
  std::vector<std::pair<std::string, std::string>> query;  // not encoded
  std::string content_type;
  std::string body;
};

class RestClient {
 public:
  explicit RestClient(ClientConfig config, RestClientOptions options = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const ClientConfig& config() const;

  // Objects. `ns` is ignored for cluster-scoped resources; for namespaced ones "" means all
  // namespaces (list/watch) and is an error for single-object verbs.
  boost::json::value get(const ResourceRef& ref, const std::string& ns, const std::string& name);
  boost::json::value list(const ResourceRef& ref, const std::string& ns,
                          const ListOptions& options = {});
  boost::json::value create(const ResourceRef& ref, const std::string& ns,
                            const boost::json::value& object, const WriteOptions& options = {});
  // PUT; object.metadata.resourceVersion set -> 409 Conflict when stale.
  boost::json::value update(const ResourceRef& ref, const std::string& ns,
                            const boost::json::value& object, const WriteOptions& options = {});
  boost::json::value merge_patch(const ResourceRef& ref, const std::string& ns,
                                 const std::string& name, const boost::json::value& patch,
                                 const WriteOptions& options = {});
  boost::json::value json_patch(const ResourceRef& ref, const std::string& ns,
                                const std::string& name, const boost::json::value& operations,
                                const WriteOptions& options = {});
  // Returns the server's answer: the deleted object, the object now carrying deletionTimestamp,
  // or a Status.
  boost::json::value remove(const ResourceRef& ref, const std::string& ns, const std::string& name,
                            const DeleteOptions& options = {});

  // The status subresource.
  boost::json::value get_status(const ResourceRef& ref, const std::string& ns,
                                const std::string& name);
  boost::json::value update_status(const ResourceRef& ref, const std::string& ns,
                                   const boost::json::value& object,
                                   const WriteOptions& options = {});
  boost::json::value merge_patch_status(const ResourceRef& ref, const std::string& ns,
                                        const std::string& name, const boost::json::value& patch,
                                        const WriteOptions& options = {});

  // Blocks, handing each event to `on_event`, until the server ends the stream (returns normally),
  // the callback answers Stop, or an error: a non-2xx answer to the watch request throws ApiError;
  // a broken connection throws TransportError; a malformed line throws WatchDecodeError. In-stream
  // ERROR events (e.g. 410 Expired) are delivered to the callback, like client-go does; the
  // server closes the stream after them. Each event is handed over once: the callback may move
  // from it.
  void watch(const ResourceRef& ref, const std::string& ns, const WatchOptions& options,
             const std::function<WatchControl(WatchEvent&)>& on_event);

  // Any request: rate limited, retried on 429, decoded into ApiError when not 2xx.
  RestResponse request(const RestRequest& request);

  // The API path of a collection / object / subresource (exposed for logs and tests).
  static std::string path_for(const ResourceRef& ref, const std::string& ns,
                              const std::string& name = {}, const std::string& subresource = {});

  // Connections opened so far (TCP connects): with keep-alive, sequential requests share one.
  std::size_t connections_opened() const;

  // For a prompt exit, whatever the server does: ends every call in flight at once (a connect, a
  // request awaiting its answer, a LIST, a watch, a rate-limit or Retry-After wait), each throwing
  // TransportError ("cancelled"; a watch stopped through WatchOptions::stop still just returns).
  // Later calls make one attempt bounded by `later_calls_timeout` (room for a last write, such as
  // releasing a Lease); zero fails them at once. Thread-safe; a second call ends the later ones.
  void shutdown(std::chrono::milliseconds later_calls_timeout = std::chrono::milliseconds::zero());

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::k8s
