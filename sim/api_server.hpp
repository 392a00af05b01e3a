#pragma once
// The API server's request handling, free of any HTTP library: routing of /api and /apis paths,
// discovery, CRUD / PATCH / status subresource, dry-run, CRD registration (validated through the
// api/ SchemaRegistry) and watch streams (pulled by the transport with poll_watch). Thread-safe.
#include "sim/authn.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/fault_plan.hpp"
#include "sim/request_log.hpp"
#include "sim/resources.hpp"
#include "sim/store.hpp"
#include "sim/trainer.hpp"

#include "api/validation.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nvcre::sim {

struct HttpRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string path;    // decoded path, no query
  std::map<std::string, std::string> query;
  std::string content_type;
  std::string accept;
  std::string body;
  std::string user_agent{};  // counted per verb in the request log: which client wrote what
  // From "Authorization: Bearer <token>" ("" when absent). A secret: never logged or echoed.
  std::string bearer_token{};
  // Impersonate-User / Impersonate-Group (repeated) / Impersonate-Uid (kubectl --as ...).
  std::string impersonate_user{};
  std::vector<std::string> impersonate_groups{};
  std::string impersonate_uid{};
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers{};  // extra headers, e.g. Retry-After
  std::chrono::milliseconds delay{0};  // injected latency: the transport waits this long first
};

// An open watch: the transport sends `initial` lines, then polls for more until `deadline`.
struct WatchStream {
  ResourceType type;
  std::string ns;
  Filter filter;
  std::uint64_t last_rv = 0;
  bool bookmarks = false;
  bool closed = false;               // after an ERROR event
  std::vector<std::string> initial;  // lines to send first (synthetic ADDED, or an ERROR)
  std::chrono::steady_clock::time_point deadline;
  std::chrono::steady_clock::time_point next_bookmark;
  std::chrono::milliseconds delay{0};  // injected latency before the first bytes
  std::optional<std::chrono::steady_clock::time_point> drop_at;  // injected drop
  bool dropped = false;  // set with closed: cut the connection without the terminating chunk
  // ApiServer's watch generation when the watch opened: DELETE /sim/watches ends older ones.
  std::uint64_t generation = 0;
  // Rewrites each event's object before it is sent (events.k8s.io/v1 Events, stored as core v1).
  std::function<boost::json::value(const boost::json::value&)> present{};
};

// Who may do what. Open (the default) serves every request as kube-sim always has; RBAC
// authenticates each request by its bearer token (the admin token, or one TokenRequest issued)
// and authorizes it against the stored Roles, ClusterRoles and their bindings, as kube-apiserver
// with --authorization-mode=RBAC: 401 without a known token, 403 with the API server's message.
struct AccessOptions {
  bool rbac = false;
  std::string admin_token;  // authenticates as a member of system:masters ("" = none)
};

struct ApiServerOptions {
  StoreOptions store;
  std::chrono::milliseconds bookmark_interval{5000};
  int default_watch_timeout_seconds = 1800;
  std::size_t request_log_capacity = 1000;
  std::optional<ClusterProfile>
      cluster;             // simulated GPU Nodes created up front (sim/cluster_profile.hpp)
  TrainerOptions trainer;  // simulated Kubeflow Trainer (sim/trainer.hpp); off by default
  AccessOptions access;
};

class ApiServer {
 public:
  explicit ApiServer(ApiServerOptions options = {});

  // A plain response, or a watch to stream (200, chunked, one JSON event per line).
  std::variant<HttpResponse, std::shared_ptr<WatchStream>> handle(const HttpRequest& request);

  // New event lines (each ends with '\n') for an open watch; sets stream.closed after an ERROR.
  std::vector<std::string> poll_watch(WatchStream& stream);

  // Preloads a CRD (as `kubectl create` would); throws ApiError when it is rejected.
  void add_crd(const boost::json::value& crd);
  // Creates an object directly; for tests and the simulated cluster.
  boost::json::value create(const std::string& api_version, const std::string& resource,
                            const std::string& ns, boost::json::value object);

  Store& store() { return store_; }
  FaultInjector& faults() { return faults_; }
  RequestLog& request_log() { return log_; }
  auth::TokenRegistry& tokens() { return tokens_; }
  // Runs the garbage collector over what changed, to a fixed point (the server does after every
  // request that left it work).
  void collect_garbage();

  // One simulated-Trainer pass, then a garbage collection of what it left; how many TrainJobs moved
  // (0 when off). The pass writes through the store, as the real Trainer is a client of the API
  // server: requests are served while it runs, not held behind it.
  std::size_t advance_simulation();
  // Runs advance_simulation every trainer_tick_interval on a background thread (KubeSim::start)
  // when the Trainer is on; stop is idempotent and also happens on destruction.
  void start_simulation();
  void stop_simulation();

 private:
  std::variant<HttpResponse, std::shared_ptr<WatchStream>> serve(const HttpRequest& request,
                                                                 const rbac::UserInfo& user);
  // With RBAC on: who sent the request, or the 401 / 403 answer (counted per user); with it off,
  // an anonymous user and no answer (api_server_access.cpp).
  std::variant<rbac::UserInfo, HttpResponse> admit_request(const HttpRequest& request);
  rbac::RbacObjects rbac_objects() const;
  // POST tokenreviews, subjectaccessreviews, selfsubjectaccessreviews: answered, never stored.
  HttpResponse review(const HttpRequest& request, const ResourceInfo& info,
                      const rbac::UserInfo& user);
  // POST serviceaccounts/<name>/token (TokenRequest).
  HttpResponse token_request(const HttpRequest& request, const ResourceInfo& info,
                             const std::string& ns, const std::string& name);
  // /sim/faults, /sim/stats, /sim/logs, /sim/watches (api_server_admin.cpp).
  HttpResponse admin(const HttpRequest& request);
  HttpResponse replay_log(const HttpRequest& request);  // PUT /sim/logs/<namespace>/<pod>
  HttpResponse dispatch(const HttpRequest& request, const rbac::UserInfo& user,
                        std::shared_ptr<WatchStream>& watch);
  HttpResponse discovery(const HttpRequest& request, bool& handled);
  HttpResponse resource_request(const HttpRequest& request, const ResourceInfo& info,
                                const std::string& ns, const std::string& name,
                                const std::string& subresource, const rbac::UserInfo& user,
                                std::shared_ptr<WatchStream>& watch);
  // events.k8s.io/v1 Events: served from the core v1 Event store (sim/event_versions.hpp).
  HttpResponse events_v1_request(const HttpRequest& request, const std::string& ns,
                                 const std::string& name, const std::string& subresource,
                                 const rbac::UserInfo& user, std::shared_ptr<WatchStream>& watch);
  // A GET answer (or watch) as a meta.k8s.io Table, for clients that ask for one (sim/table.hpp).
  HttpResponse as_table(const HttpRequest& request, const ResourceInfo& info, HttpResponse response,
                        const std::shared_ptr<WatchStream>& watch);
  HttpResponse list(const HttpRequest& request, const ResourceInfo& info, const std::string& ns);
  std::shared_ptr<WatchStream> open_watch(const HttpRequest& request, const ResourceInfo& info,
                                          const std::string& ns);
  boost::json::value patch(const HttpRequest& request, const ResourceInfo& info,
                           const std::string& ns, const std::string& name, bool status,
                           bool dry_run, const rbac::UserInfo& user);
  HttpResponse remove(const HttpRequest& request, const ResourceInfo& info, const std::string& ns,
                      const std::string& name, bool dry_run);

  // Admission: CRD schema defaults + validation for custom resources, registration checks for CRDs.
  Admit admission(const ResourceInfo& info, bool status, const std::string& field_validation);
  // With access control on: OwnerReferencesPermissionEnforcement for a main-resource write of
  // `object` over `old` (null for a create); throws the 403 and counts it as a denial
  // (api_server_access.cpp). Runs before the store's write: the store's admission holds its lock.
  void check_owner_references(const rbac::UserInfo& user, const ResourceInfo& info,
                              const std::string& ns, const boost::json::value* old,
                              const boost::json::value& object);
  void after_crd_write(const boost::json::value& crd);
  void after_crd_delete(const boost::json::value& crd);
  void ensure_namespace(const ResourceInfo& info, const std::string& ns) const;

  ApiServerOptions options_;
  std::recursive_mutex mutex_;
  Store store_;
  ResourceRegistry registry_;
  api::SchemaRegistry schemas_;
  FaultInjector faults_;
  RequestLog log_;
  auth::TokenRegistry tokens_;
  PodLogs pod_logs_;                    // the Trainer's pods' container logs (pods/<name>/log)
  std::uint64_t watch_generation_ = 0;  // DELETE /sim/watches ends the watches opened before
  std::mutex simulation_mutex_;  // one Trainer pass at a time (the ticker, a test's own call)
  std::unique_ptr<Trainer> trainer_;
  std::unique_ptr<PeriodicTicker> ticker_;  // last: its thread stops before anything it uses goes
};

// One watch event line: {"type": ..., "object": ...}\n
std::string watch_line(std::string_view type, const boost::json::value& object);
// The same line from the object's JSON text (an event serialized once for every watch).
std::string watch_line(std::string_view type, std::string_view object_json);
// Watch lines with each event's object rewritten by `present` (ERROR lines kept as they are).
std::vector<std::string> present_watch_lines(
    const std::vector<std::string>& lines,
    const std::function<boost::json::value(const boost::json::value&)>& present);

}  // namespace nvcre::sim
