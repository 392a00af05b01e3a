// events.k8s.io/v1 Events, served from the core v1 Event store: requests are converted to the
// core form, answers and watch events back (sim/event_versions.hpp).
#include "sim/api_server.hpp"

#include "jsonkit/yaml.hpp"
#include "sim/event_versions.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

std::string media_type_of(const std::string& content_type) {
  std::string out = content_type.substr(0, content_type.find(';'));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The body of a create, update or patch in the core form; a body that does not parse is left as
// it is, for the core handler to reject with its usual message.
std::string core_body(const HttpRequest& request) {
  const std::string type = media_type_of(request.content_type);
  try {
    if (type == "application/json-patch+json")
      return json::serialize(
          convert_event_json_patch(json::parse(request.body), EventForm::EventsV1));
    if (type == "application/apply-patch+yaml")  // JSON is YAML: the core handler reads it
      return json::serialize(convert_event(jsonkit::parse_yaml(request.body), EventForm::Core));
    if (type.find("protobuf") != std::string::npos) return request.body;
    return json::serialize(convert_event(json::parse(request.body), EventForm::Core));
  } catch (const std::exception&) {
    return request.body;
  }
}

json::value events_v1_answer(const json::value& body) {
  if (!body.is_object()) return body;
  const auto* kind = body.as_object().if_contains("kind");
  if (kind && *kind == "Event") return convert_event(body, EventForm::EventsV1);
  if (!kind || *kind != "EventList") return body;
  json::object list = body.as_object();
  list["apiVersion"] = "events.k8s.io/v1";
  if (auto* items = list.if_contains("items"); items && items->is_array())
    for (auto& item : items->as_array()) item = convert_event(item, EventForm::EventsV1);
  return list;
}

}  // namespace

HttpResponse ApiServer::events_v1_request(const HttpRequest& request, const std::string& ns,
                                          const std::string& name, const std::string& subresource,
                                          const rbac::UserInfo& user,
                                          std::shared_ptr<WatchStream>& watch) {
  const ResourceInfo& core = *registry_.find("", "v1", "events");
  HttpRequest inner = request;
  if (auto it = inner.query.find("fieldSelector"); it != inner.query.end())
    it->second = events_v1_field_selector_to_core(it->second);
  const bool writes_object =
      request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
  if (writes_object && !request.body.empty()) inner.body = core_body(request);
  HttpResponse response;
  try {
    response = resource_request(inner, core, ns, name, subresource, user, watch);
  } catch (const ApiError& error) {  // name the resource as the client addressed it
    if (error.reason == "NotFound" && !name.empty())
      throw not_found("events.k8s.io", "events", name);
    if (error.reason == "AlreadyExists")
      throw already_exists("events.k8s.io", "events", error.name);
    throw;
  }
  if (watch) {
    watch->present = [](const json::value& object) {
      return convert_event(object, EventForm::EventsV1);
    };
    watch->initial = present_watch_lines(watch->initial, watch->present);
    return response;
  }
  if (response.content_type == "application/json" && !response.body.empty()) {
    boost::system::error_code ec;
    const json::value body = json::parse(response.body, ec);
    if (!ec) response.body = json::serialize(events_v1_answer(body));
  }
  return response;
}

}  // namespace nvcre::sim
