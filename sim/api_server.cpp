// Routing, discovery and the plain CRUD verbs. PATCH, admission and watch live in
// api_server_patch.cpp and api_server_watch.cpp.
#include "sim/api_server.hpp"

#include "sim/access.hpp"
#include "sim/garbage_collector.hpp"
#include "sim/log_query.hpp"
#include "sim/openapi.hpp"
#include "sim/protobuf_body.hpp"
#include "sim/query_params.hpp"
#include "sim/selectors.hpp"
#include "sim/table.hpp"
#include "sim/volume_binder.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

HttpResponse json_response(const json::value& body, int status = 200) {
  return HttpResponse{status, "application/json", json::serialize(body)};
}

HttpResponse error_response(const ApiError& error) {
  return json_response(error.to_status(), error.code);
}

std::string query(const HttpRequest& request, const std::string& key) {
  auto it = request.query.find(key);
  return it == request.query.end() ? std::string() : it->second;
}

json::value parse_body(const HttpRequest& request) {
  return decode_request_body(request.content_type, request.body);
}

// DeleteOptions.propagationPolicy from the query or the body; Background when absent.
Propagation propagation_policy(const HttpRequest& request) {
  std::string policy = query(request, "propagationPolicy");
  if (policy.empty() && !request.body.empty()) {
    boost::system::error_code ec;
    json::value options = json::parse(request.body, ec);
    if (!ec && options.is_object())
      if (const auto* p = options.as_object().if_contains("propagationPolicy"); p && p->is_string())
        policy = std::string(p->as_string());
  }
  if (policy.empty()) return Propagation::Background;
  if (auto parsed = parse_propagation(policy)) return *parsed;
  throw invalid("meta.k8s.io", "DeleteOptions", "",
                {{"FieldValueNotSupported",
                  "Unsupported value: \"" + policy +
                      "\": supported values: \"Foreground\", \"Background\", \"Orphan\"",
                  "propagationPolicy"}});
}

}  // namespace

std::string watch_line(std::string_view type, std::string_view object_json) {
  std::string line;
  line.reserve(object_json.size() + type.size() + 24);
  line.append(R"({"type":")")
      .append(type)
      .append(R"(","object":)")
      .append(object_json)
      .append("}\n");
  return line;
}

std::string watch_line(std::string_view type, const json::value& object) {
  return watch_line(type, json::serialize(object));
}

ApiServer::ApiServer(ApiServerOptions options)
    : options_(std::move(options)), store_(options_.store), log_(options_.request_log_capacity) {
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    json::value object = json::object{
        {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", ns}}}};
    auto created = store_.create(registry_.find("", "v1", "namespaces")->type, "", object);
    created.as_object()["spec"] = json::object{{"finalizers", json::array{"kubernetes"}}};
    created.as_object()["status"] = json::object{{"phase", "Active"}};
    store_.update(registry_.find("", "v1", "namespaces")->type, "", ns, created,
                  Store::UpdateKind::Status);
  }
  if (options_.access.rbac) {
    tokens_.set_admin_token(options_.access.admin_token);
    const ResourceType& roles =
        registry_.find("rbac.authorization.k8s.io", "v1", "clusterroles")->type;
    const ResourceType& bindings =
        registry_.find("rbac.authorization.k8s.io", "v1", "clusterrolebindings")->type;
    for (auto& role : access::bootstrap_cluster_roles()) store_.create(roles, "", std::move(role));
    for (auto& binding : access::bootstrap_cluster_role_bindings())
      store_.create(bindings, "", std::move(binding));
  }
  if (options_.cluster)
    add_cluster_nodes(store_, registry_.find("", "v1", "nodes")->type, *options_.cluster);
  if (options_.trainer.enabled) {
    auto lookup = [this](const std::string& group, const std::string& version,
                         const std::string& resource) -> std::optional<ResourceType> {
      std::lock_guard lock(mutex_);  // a CRD request may change the registry meanwhile
      const ResourceInfo* info = registry_.find(group, version, resource);
      return info ? std::optional<ResourceType>(info->type) : std::nullopt;
    };
    trainer_ = std::make_unique<Trainer>(store_, pod_logs_, lookup, options_.trainer);
  }
}

// handle() (faults, request log, garbage collection around this) lives in api_server_admin.cpp.
std::variant<HttpResponse, std::shared_ptr<WatchStream>> ApiServer::serve(
    const HttpRequest& request, const rbac::UserInfo& user) {
  std::shared_ptr<WatchStream> watch;
  try {
    HttpResponse response = dispatch(request, user, watch);
    if (watch) return watch;
    return response;
  } catch (const ApiError& error) {
    return error_response(error);
  } catch (const std::exception& e) {
    ApiError error(500, "InternalError", std::string("Internal error occurred: ") + e.what());
    return error_response(error);
  }
}

HttpResponse ApiServer::dispatch(const HttpRequest& request, const rbac::UserInfo& user,
                                 std::shared_ptr<WatchStream>& watch) {
  bool handled = false;
  HttpResponse response = discovery(request, handled);
  if (handled) return response;

  auto segments = split_path(request.path);
  std::string group, version;
  std::size_t i = 0;
  if (segments.size() >= 2 && segments[0] == "api") {
    version = segments[1];
    i = 2;
  } else if (segments.size() >= 3 && segments[0] == "apis") {
    group = segments[1];
    version = segments[2];
    i = 3;
  } else {
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  }
  std::vector<std::string> rest(segments.begin() + static_cast<std::ptrdiff_t>(i), segments.end());
  std::string ns;
  if (rest.size() >= 3 && rest[0] == "namespaces" && rest[2] != "status" && rest[2] != "finalize") {
    ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3)
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  const ResourceInfo* info = registry_.find(group, version, rest[0]);
  if (!info) throw ApiError(404, "NotFound", "the server could not find the requested resource");
  if (!ns.empty() && !info->type.namespaced)
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  std::string name = rest.size() > 1 ? rest[1] : std::string();
  std::string sub = rest.size() > 2 ? rest[2] : std::string();
  if (!sub.empty() && !(sub == "status" && info->type.status_subresource) &&
      !(sub == "log" && info->log_subresource) && !(sub == "token" && info->token_subresource))
    throw ApiError(404, "NotFound", "the server could not find the requested resource");
  if (info->review) {
    if (!name.empty())
      throw ApiError(404, "NotFound", "the server could not find the requested resource");
    return review(request, *info, user);
  }
  if (sub == "token") return token_request(request, *info, ns, name);
  response = info->type.group == "events.k8s.io" && info->type.resource == "events"
                 ? events_v1_request(request, ns, name, sub, user, watch)
                 : resource_request(request, *info, ns, name, sub, user, watch);
  if (request.method == "GET" && sub.empty() && accepts_table(request.accept))
    return as_table(request, *info, std::move(response), watch);
  return response;
}

HttpResponse ApiServer::discovery(const HttpRequest& request, bool& handled) {
  handled = true;
  const std::string& p = request.path;
  if (request.method != "GET") {
    handled = false;
    return {};
  }
  if (p == "/version" || p == "/version/")
    return json_response(
        json::object{{"major", api::kImitatedKubernetesMajor},
                     {"minor", api::kImitatedKubernetesMinor},
                     {"gitVersion", std::string(api::kImitatedKubernetesVersion) + "-kube-sim"},
                     {"gitCommit", "0000000000000000000000000000000000000000"},
                     {"gitTreeState", "clean"},
                     {"buildDate", "2025-01-01T00:00:00Z"},
                     {"goVersion", "go1.25"},
                     {"compiler", "gc"},
                     {"platform", "linux/amd64"}});
  if (p == "/healthz" || p == "/readyz" || p == "/livez")
    return HttpResponse{200, "text/plain", "ok"};
  if (p == "/api" || p == "/api/") return json_response(registry_.core_versions());
  if (p == "/apis" || p == "/apis/") return json_response(registry_.group_list());
  auto segments = split_path(p);
  const ApiError not_served(404, "NotFound", "the server could not find the requested resource");
  if (segments.size() == 2 && segments[0] == "api") {
    if (auto list = registry_.resource_list("", segments[1])) return json_response(*list);
    throw not_served;
  }
  if (segments.size() == 2 && segments[0] == "apis") {
    if (auto g = registry_.group(segments[1])) return json_response(*g);
    throw not_served;
  }
  if (segments.size() == 3 && segments[0] == "apis") {
    if (auto list = registry_.resource_list(segments[1], segments[2])) return json_response(*list);
    throw not_served;
  }
  if (segments.size() == 2 && segments[0] == "openapi" && segments[1] == "v3")
    return json_response(openapi_v3_index(registry_, std::to_string(store_.resource_version())));
  if (segments.size() > 2 && segments[0] == "openapi" && segments[1] == "v3") {
    std::string gv = segments[2];
    for (std::size_t k = 3; k < segments.size(); ++k) gv += "/" + segments[k];
    if (auto doc = openapi_v3_document(registry_, gv)) return json_response(*doc);
    throw not_served;
  }
  if (segments.empty() || (segments[0] != "api" && segments[0] != "apis")) throw not_served;
  handled = false;
  return {};
}

void ApiServer::ensure_namespace(const ResourceInfo& info, const std::string& ns) const {
  if (!info.type.namespaced) return;
  if (ns.empty())
    throw bad_request(
        "the namespace of the provided object does not match the namespace sent on the request");
  if (!store_.find(registry_.find("", "v1", "namespaces")->type, "", ns))
    throw not_found("", "namespaces", ns);
}

HttpResponse ApiServer::resource_request(const HttpRequest& request, const ResourceInfo& info,
                                         const std::string& ns, const std::string& name,
                                         const std::string& sub, const rbac::UserInfo& user,
                                         std::shared_ptr<WatchStream>& watch) {
  const bool dry_run = query(request, "dryRun") == "All";
  const std::string& method = request.method;
  if (name.empty()) {
    if (method == "GET") {
      if (query_flag(request.query, "watch")) {
        watch = open_watch(request, info, ns);
        return {};
      }
      return list(request, info, ns);
    }
    if (method == "POST") {
      json::value body = parse_body(request);
      std::string body_ns = meta_string(body, "namespace");
      if (info.type.namespaced && !body_ns.empty() && body_ns != ns)
        throw bad_request(
            "the namespace of the provided object does not match the namespace sent on the "
            "request");
      ensure_namespace(info, ns);
      check_owner_references(user, info, ns, nullptr, body);
      json::value created =
          store_.create(info.type, ns, std::move(body),
                        admission(info, false, query(request, "fieldValidation")), dry_run);
      if (!dry_run && info.type.resource == "customresourcedefinitions") after_crd_write(created);
      return json_response(created, 201);
    }
    if (method == "DELETE") {
      Filter filter = make_filter(query(request, "labelSelector"), query(request, "fieldSelector"));
      const std::string finalizer = propagation_finalizer(propagation_policy(request));
      json::array items;
      for (const auto& object : store_.list(info.type, ns, filter).items) {
        auto result = store_.remove(info.type, meta_string(object, "namespace"),
                                    meta_string(object, "name"), dry_run, std::nullopt, finalizer);
        if (result.deleted && !dry_run && info.type.resource == "customresourcedefinitions")
          after_crd_delete(result.object);
        items.push_back(result.object);
      }
      return json_response(json::object{{"kind", info.type.kind + "List"},
                                        {"apiVersion", info.type.api_version()},
                                        {"metadata", json::object{}},
                                        {"items", std::move(items)}});
    }
    throw method_not_allowed("the server does not allow this method on the requested resource");
  }
  if (sub == "log") {
    if (method != "GET")
      throw method_not_allowed("the server does not allow this method on the requested resource");
    // As kube-apiserver: the options are decoded and validated before the pod is looked up.
    const PodLogOptions options = parse_pod_log_options(request.query, name);
    const json::value pod = store_.get(info.type, ns, name);
    const std::string container = resolve_log_container(pod, options.container);
    if (options.previous)  // kube-sim never restarts a container
      throw bad_request("previous terminated container \"" + container + "\" in pod \"" + name +
                        "\" not found");
    return HttpResponse{
        200, "text/plain",
        render_pod_log(pod_logs_.lines(ns, name, meta_string(pod, "uid"), container), options,
                       store_.now())};
  }
  const bool status = sub == "status";
  if (method == "GET") return json_response(store_.get(info.type, ns, name));
  if (method == "PUT") {
    json::value body = parse_body(request);
    if (!status) {
      const auto old = store_.find(info.type, ns, name);
      check_owner_references(user, info, ns, old ? &*old : nullptr, body);
    }
    json::value updated =
        store_.update(info.type, ns, name, std::move(body),
                      status ? Store::UpdateKind::Status : Store::UpdateKind::Main,
                      admission(info, status, query(request, "fieldValidation")), dry_run);
    if (!dry_run && info.type.resource == "customresourcedefinitions") after_crd_write(updated);
    return json_response(updated);
  }
  if (method == "PATCH")
    return json_response(patch(request, info, ns, name, status, dry_run, user));
  if (method == "DELETE" && !status) return remove(request, info, ns, name, dry_run);
  throw method_not_allowed("the server does not allow this method on the requested resource");
}

HttpResponse ApiServer::list(const HttpRequest& request, const ResourceInfo& info,
                             const std::string& ns) {
  Filter filter = make_filter(query(request, "labelSelector"), query(request, "fieldSelector"));
  std::size_t limit = 0;
  if (auto l = query(request, "limit"); !l.empty()) {
    try {
      limit = static_cast<std::size_t>(std::stoll(l));
    } catch (const std::exception&) {
      throw bad_request("invalid limit: " + l);
    }
  }
  ListResult result = store_.list(info.type, ns, filter, limit, query(request, "continue"));
  json::object meta{{"resourceVersion", std::to_string(result.resource_version)}};
  if (!result.continue_token.empty()) {
    meta["continue"] = result.continue_token;
    meta["remainingItemCount"] = result.remaining_item_count;
  }
  json::array items;
  for (auto& item : result.items) items.push_back(std::move(item));
  return json_response(json::object{{"kind", info.type.kind + "List"},
                                    {"apiVersion", info.type.api_version()},
                                    {"metadata", std::move(meta)},
                                    {"items", std::move(items)}});
}

HttpResponse ApiServer::remove(const HttpRequest& request, const ResourceInfo& info,
                               const std::string& ns, const std::string& name, bool dry_run) {
  std::optional<std::string> precondition;
  std::optional<std::string> precondition_uid;
  if (!request.body.empty()) {
    boost::system::error_code ec;
    json::value options = json::parse(request.body, ec);
    if (!ec && options.is_object()) {
      if (const auto* dr = options.as_object().if_contains("dryRun");
          dr && dr->is_array() && !dr->as_array().empty())
        dry_run = true;
      if (const auto* pre = options.as_object().if_contains("preconditions");
          pre && pre->is_object())
        if (const auto* rv = pre->as_object().if_contains("resourceVersion"); rv && rv->is_string())
          precondition = std::string(rv->as_string());
      if (const auto* pre = options.as_object().if_contains("preconditions");
          pre && pre->is_object())
        if (const auto* uid = pre->as_object().if_contains("uid"); uid && uid->is_string())
          precondition_uid = std::string(uid->as_string());
    }
  }
  auto result = store_.remove(info.type, ns, name, dry_run, precondition,
                              propagation_finalizer(propagation_policy(request)), precondition_uid);
  if (result.deleted && !dry_run && info.type.resource == "customresourcedefinitions")
    after_crd_delete(result.object);
  return json_response(result.object, result.deleted ? 200 : 200);
}

void ApiServer::add_crd(const json::value& crd) {
  std::lock_guard lock(mutex_);
  const ResourceInfo& info =
      *registry_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
  after_crd_write(store_.create(info.type, "", crd, admission(info, false, "Strict")));
}

json::value ApiServer::create(const std::string& api_version, const std::string& resource,
                              const std::string& ns, json::value object) {
  std::lock_guard lock(mutex_);
  auto slash = api_version.find('/');
  std::string group = slash == std::string::npos ? std::string() : api_version.substr(0, slash);
  std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  const ResourceInfo* info = registry_.find(group, version, resource);
  if (!info) throw ApiError(404, "NotFound", "the server could not find the requested resource");
  ensure_namespace(*info, ns);
  json::value created =
      store_.create(info->type, ns, std::move(object), admission(*info, false, "Strict"));
  if (info->type.resource == "customresourcedefinitions") after_crd_write(created);
  return created;
}

std::size_t ApiServer::advance_simulation() {
  if (!trainer_) return 0;
  std::lock_guard pass(simulation_mutex_);
  std::optional<ResourceType> claims, volumes, classes;
  {
    std::lock_guard lock(mutex_);  // a CRD request may change the registry meanwhile
    claims = registry_.find("", "v1", "persistentvolumeclaims")->type;
    volumes = registry_.find("", "v1", "persistentvolumes")->type;
    classes = registry_.find("storage.k8s.io", "v1", "storageclasses")->type;
  }
  std::size_t changed = bind_volumes(store_, *claims, *volumes, classes);
  changed += trainer_->reconcile();
  // What the pass raced with (pods made for a TrainJob deleted meanwhile) is collected now, not
  // at the next request.
  std::lock_guard lock(mutex_);
  if (store_.has_gc_work()) collect_garbage();
  return changed;
}

void ApiServer::start_simulation() {
  if (trainer_ && !ticker_)
    ticker_ = std::make_unique<PeriodicTicker>(trainer_tick_interval(options_.trainer.step),
                                               [this] { advance_simulation(); });
}

void ApiServer::stop_simulation() { ticker_.reset(); }

}  // namespace nvcre::sim
