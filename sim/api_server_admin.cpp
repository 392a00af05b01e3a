// What wraps every request: fault injection (sim/fault_plan.hpp), the request log and stats
// (sim/request_log.hpp), synchronous garbage collection (sim/garbage_collector.hpp) after any
// request that left the collector work, and the admin endpoints:
//   GET /sim/faults            the plan and the injected-fault counters
//   PUT /sim/faults            replace the plan (YAML or JSON body); an empty plan turns faults off
//   DELETE /sim/faults         turn faults off and zero the counters
//   GET /sim/stats[?recent=N]  request counters, creates per name, denied requests per user (with
//                              --authorization rbac), the last N log entries
//   DELETE /sim/stats          zero the request log
//   PUT /sim/logs/<namespace>/<pod>[?container=C]
//                              replace that container's log with the body (a captured log to
//                              replay): each line keeps a leading RFC 3339 timestamp, else gets
//                              the time of the PUT; the simulation writes no more to it
//   DELETE /sim/watches        end every open watch (cleanly, as at its timeout) and compact
//                              past the current resourceVersion (Store::compact_all): every
//                              client resumes its watch, gets 410 Expired and relists, as after
//                              an API server restart that outlived the watch cache's window.
//                              Answers {"resourceVersion": the first version still watchable}
// /sim/* requests are neither logged nor subject to faults or access control (they are the
// simulation's controls, not part of the Kubernetes API).
#include "sim/api_server.hpp"

#include "sim/garbage_collector.hpp"
#include "sim/log_query.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

HttpResponse json_response(const json::value& body, int status = 200) {
  return HttpResponse{status, "application/json", json::serialize(body), {}, {}};
}

HttpResponse error_response(const ApiError& error) {
  HttpResponse response = json_response(error.to_status(), error.code);
  if (error.retry_after_seconds > 0)
    response.headers.emplace_back("Retry-After", std::to_string(error.retry_after_seconds));
  return response;
}

std::string target_of(const HttpRequest& request) {
  std::string out = request.path;
  char sep = '?';
  for (const auto& [key, value] : request.query) {
    out += sep + key + "=" + value;
    sep = '&';
  }
  return out;
}

// The name a create addressed: the response's (201), else the body's name or generateName prefix.
std::string created_name(const HttpRequest& request, const HttpResponse* response) {
  boost::system::error_code ec;
  if (response && response->status == 201) {
    json::value created = json::parse(response->body, ec);
    if (!ec) return meta_string(created, "name");
  }
  json::value body = json::parse(request.body, ec);
  if (ec) return {};
  std::string name = meta_string(body, "name");
  if (name.empty() && !meta_string(body, "generateName").empty())
    name = meta_string(body, "generateName") + "*";
  return name;
}

}  // namespace

std::variant<HttpResponse, std::shared_ptr<WatchStream>> ApiServer::handle(
    const HttpRequest& request) {
  std::lock_guard lock(mutex_);
  if (request.path == "/sim" || request.path.starts_with("/sim/")) {
    try {
      return admin(request);
    } catch (const ApiError& error) {
      return error_response(error);
    }
  }
  const auto started = std::chrono::steady_clock::now();
  const auto target = classify_request(request.method, request.path, request.query);
  // Access control first, as in kube-apiserver's filter chain: a refused request reaches neither
  // the fault plan nor the handlers.
  auto admitted = admit_request(request);
  FaultDecision fault;
  std::variant<HttpResponse, std::shared_ptr<WatchStream>> result;
  if (auto* refused = std::get_if<HttpResponse>(&admitted)) {
    result = std::move(*refused);
  } else {
    if (target) fault = faults_.decide(*target);
    if (fault.error) {
      result = error_response(*fault.error);
    } else {
      result = serve(request, std::get<rbac::UserInfo>(admitted));
    }
  }

  int code = 200;
  if (auto* response = std::get_if<HttpResponse>(&result)) {
    response->delay = fault.delay;
    code = response->status;
  } else {
    auto& stream = *std::get<std::shared_ptr<WatchStream>>(result);
    stream.delay = fault.delay;
    if (fault.watch_gone && !stream.closed) {
      ApiError expired =
          gone("too old resource version: " + std::to_string(stream.last_rv) + " (" +
               std::to_string(store_.resource_version()) + ") (kube-sim fault injection)");
      stream.initial = {watch_line("ERROR", expired.to_status())};
      stream.closed = true;
    }
    if (fault.watch_drop_after.count() > 0 && !stream.closed)
      stream.drop_at = std::chrono::steady_clock::now() + fault.delay + fault.watch_drop_after;
  }

  if (target && target->verb == Verb::Create && target->subresource.empty())
    log_.record_create(qualified_resource(target->resource, target->group), target->ns,
                       created_name(request, std::get_if<HttpResponse>(&result)), code == 201);

  // The store knows which writes changed what the collector decides on (sim/owner_index.hpp); a
  // spec, label or status write leaves it nothing to do.
  if (store_.has_gc_work()) collect_garbage();

  const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started);
  log_.record(RequestRecord{
      request.method, target_of(request), target ? to_string(target->verb) : "other", code,
      elapsed + std::chrono::duration_cast<std::chrono::microseconds>(fault.delay),
      fault.error.has_value() || fault.watch_gone, request.user_agent,
      std::chrono::system_clock::now() - elapsed});
  return result;
}

void ApiServer::collect_garbage() {
  std::lock_guard lock(mutex_);
  std::vector<ResourceType> types;
  for (const auto& info : registry_.all()) types.push_back(info.type);
  nvcre::sim::collect_garbage(store_, types);
}

HttpResponse ApiServer::admin(const HttpRequest& request) {
  const ApiError not_found_error(404, "NotFound",
                                 "the server could not find the requested resource");
  if (request.path == "/sim/faults") {
    if (request.method == "GET") return json_response(faults_.report());
    if (request.method == "PUT" || request.method == "POST") {
      FaultPlan plan;
      try {
        if (request.body.find_first_not_of(" \t\r\n") != std::string::npos)
          plan = parse_fault_plan(request.body);
      } catch (const std::invalid_argument& e) {
        throw bad_request(e.what());
      }
      faults_.set_plan(std::move(plan));
      return json_response(faults_.report());
    }
    if (request.method == "DELETE") {
      faults_.set_plan({});
      faults_.reset_counters();
      return json_response(faults_.report());
    }
    throw method_not_allowed("the server does not allow this method on the requested resource");
  }
  if (request.path == "/sim/stats") {
    if (request.method == "GET") {
      std::size_t recent = 100;
      if (auto it = request.query.find("recent"); it != request.query.end()) {
        try {
          recent = static_cast<std::size_t>(std::stoul(it->second));
        } catch (const std::exception&) {
          throw bad_request("invalid recent: " + it->second);
        }
      }
      return json_response(log_.stats(recent));
    }
    if (request.method == "DELETE") {
      log_.reset();
      return json_response(log_.stats(0));
    }
    throw method_not_allowed("the server does not allow this method on the requested resource");
  }
  if (request.path.starts_with("/sim/logs/")) return replay_log(request);
  if (request.path == "/sim/watches") {
    if (request.method != "DELETE")
      throw method_not_allowed("the server does not allow this method on the requested resource");
    ++watch_generation_;
    store_.compact_all();
    return json_response(
        json::object{{"resourceVersion", std::to_string(store_.resource_version())}});
  }
  throw not_found_error;
}

HttpResponse ApiServer::replay_log(const HttpRequest& request) {
  const std::string_view rest =
      std::string_view(request.path).substr(std::string_view("/sim/logs/").size());
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size() ||
      rest.find('/', slash + 1) != std::string_view::npos)
    throw ApiError(404, "NotFound",
                   "the server could not find the requested resource (use "
                   "/sim/logs/<namespace>/<pod>)");
  if (request.method != "PUT")
    throw method_not_allowed("the server does not allow this method on the requested resource");
  const std::string ns(rest.substr(0, slash)), name(rest.substr(slash + 1));
  const json::value pod = store_.get(registry_.find("", "v1", "pods")->type, ns, name);
  auto container_query = request.query.find("container");
  const std::string container = resolve_log_container(
      pod, container_query == request.query.end() ? std::string() : container_query->second);
  auto lines = parse_replayed_log(request.body, store_.now());
  const auto count = lines.size();
  pod_logs_.replace(ns, name, meta_string(pod, "uid"), container, std::move(lines));
  return json_response(
      json::object{{"namespace", ns}, {"pod", name}, {"container", container}, {"lines", count}});
}

}  // namespace nvcre::sim
