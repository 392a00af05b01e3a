// The columns of Kubernetes' own printers for the built-in kinds kube-sim serves, each row with
// every column (the API server always prints wide; kubectl hides priority > 0 without -o wide).
#include "jsonkit/paths.hpp"
#include "sim/event_versions.hpp"
#include "sim/table.hpp"

#include <boost/json.hpp>

#include <map>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

using Cells = std::vector<json::value>;
constexpr std::string_view kName = "Name must be unique within a namespace.";
constexpr std::string_view kAge =
    "CreationTimestamp is the server time when the object was created.";

std::string text_or(std::string value, const char* fallback) {
  return value.empty() ? std::string(fallback) : value;
}

std::string name_of(const json::value& object) {
  return jsonkit::string_at(object, {"metadata", "name"});
}

std::string age(const json::value& object, Clock::time_point now) {
  return age_of(jsonkit::string_at(object, {"metadata", "creationTimestamp"}), now);
}

const json::array& array_at(const json::value& object,
                            std::initializer_list<std::string_view> path) {
  static const json::array empty;
  const json::value* value = jsonkit::value_at(object, path);
  return value && value->is_array() ? value->as_array() : empty;
}

std::int64_t count_at(const json::value& object, std::initializer_list<std::string_view> path) {
  const auto* value = jsonkit::object_at(object, path);
  return value ? static_cast<std::int64_t>(value->size()) : 0;
}

std::string node_address(const json::value& node, std::string_view type) {
  for (const auto& address : array_at(node, {"status", "addresses"}))
    if (jsonkit::string_of(address.if_object(), "type") == type)
      return jsonkit::string_of(address.if_object(), "address");
  return "<none>";
}

Cells node_cells(const json::value& node, const json::array&, Clock::time_point now) {
  std::string status = "Unknown";
  for (const auto& condition : array_at(node, {"status", "conditions"}))
    if (jsonkit::string_of(condition.if_object(), "type") == "Ready")
      status = jsonkit::string_of(condition.if_object(), "status") == "True" ? "Ready" : "NotReady";
  if (const auto* unschedulable = jsonkit::value_at(node, {"spec", "unschedulable"});
      unschedulable && unschedulable->is_bool() && unschedulable->as_bool())
    status += ",SchedulingDisabled";
  std::string roles;
  if (const auto* labels = jsonkit::object_at(node, {"metadata", "labels"}))
    for (const auto& [key, value] : *labels) {
      std::string role;
      if (key.starts_with("node-role.kubernetes.io/")) role = key.substr(24);
      if (key == "kubernetes.io/role" && value.is_string()) role = value.as_string();
      if (!role.empty()) roles += (roles.empty() ? "" : ",") + role;
    }
  auto info = [&](std::string_view key) {
    return text_or(jsonkit::string_at(node, {"status", "nodeInfo", key}), "<unknown>");
  };
  return {json::value(name_of(node)),
          json::value(status),
          json::value(text_or(roles, "<none>")),
          json::value(age(node, now)),
          json::value(jsonkit::string_at(node, {"status", "nodeInfo", "kubeletVersion"})),
          json::value(node_address(node, "InternalIP")),
          json::value(node_address(node, "ExternalIP")),
          json::value(info("osImage")),
          json::value(info("kernelVersion")),
          json::value(info("containerRuntimeVersion"))};
}

// The STATUS kubectl shows for a pod: the phase, overridden by the pod's reason and then by its
// containers' waiting or terminated reasons; Terminating while being deleted.
std::string pod_status(const json::value& pod, std::int64_t& ready, std::int64_t& restarts) {
  std::string reason = text_or(jsonkit::string_at(pod, {"status", "reason"}),
                               jsonkit::string_at(pod, {"status", "phase"}).c_str());
  const auto& statuses = array_at(pod, {"status", "containerStatuses"});
  bool running = false;
  for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
    const auto* status = it->if_object();
    if (const auto* count = status ? status->if_contains("restartCount") : nullptr;
        count && count->is_int64())
      restarts += count->as_int64();
    const auto* waiting = jsonkit::find_object(status, {"state", "waiting"});
    const auto* terminated = jsonkit::find_object(status, {"state", "terminated"});
    if (waiting && !jsonkit::string_of(waiting, "reason").empty()) {
      reason = jsonkit::string_of(waiting, "reason");
    } else if (terminated && !jsonkit::string_of(terminated, "reason").empty()) {
      reason = jsonkit::string_of(terminated, "reason");
    } else if (terminated) {
      const auto* code = terminated->if_contains("exitCode");
      reason = "ExitCode:" + (code ? json::serialize(*code) : std::string("0"));
    } else if (jsonkit::find_object(status, {"state", "running"}) && status->contains("ready") &&
               status->at("ready") == true) {
      running = true;
      ++ready;
    }
  }
  if (reason == "Completed" && running) reason = "Running";
  const std::string phase = jsonkit::string_at(pod, {"status", "phase"});
  if (!jsonkit::string_at(pod, {"metadata", "deletionTimestamp"}).empty() && phase != "Succeeded" &&
      phase != "Failed")
    reason = "Terminating";
  return reason;
}

Cells pod_cells(const json::value& pod, const json::array&, Clock::time_point now) {
  std::int64_t ready = 0, restarts = 0;
  const std::string status = pod_status(pod, ready, restarts);
  const auto containers = array_at(pod, {"spec", "containers"}).size();
  const auto& gates = array_at(pod, {"spec", "readinessGates"});
  std::string gates_cell = "<none>";
  if (!gates.empty()) {
    std::size_t passed = 0;
    for (const auto& gate : gates)
      for (const auto& condition : array_at(pod, {"status", "conditions"}))
        if (jsonkit::string_of(condition.if_object(), "type") ==
                jsonkit::string_of(gate.if_object(), "conditionType") &&
            jsonkit::string_of(condition.if_object(), "status") == "True")
          ++passed;
    gates_cell = std::to_string(passed) + "/" + std::to_string(gates.size());
  }
  return {json::value(name_of(pod)),
          json::value(std::to_string(ready) + "/" + std::to_string(containers)),
          json::value(status),
          json::value(std::to_string(restarts)),
          json::value(age(pod, now)),
          json::value(text_or(jsonkit::string_at(pod, {"status", "podIP"}), "<none>")),
          json::value(text_or(jsonkit::string_at(pod, {"spec", "nodeName"}), "<none>")),
          json::value(text_or(jsonkit::string_at(pod, {"status", "nominatedNodeName"}), "<none>")),
          json::value(gates_cell)};
}

Cells event_cells(const json::value& stored, const json::array&, Clock::time_point now) {
  const json::value event = convert_event(stored, EventForm::Core);
  const std::string first_time = jsonkit::string_at(event, {"firstTimestamp"});
  std::string first =
      age_of(first_time.empty() ? jsonkit::string_at(event, {"eventTime"}) : first_time, now);
  const std::string last_time = jsonkit::string_at(event, {"lastTimestamp"});
  std::string last = last_time.empty() ? first : age_of(last_time, now);
  std::int64_t count = 1;
  if (const auto* value = jsonkit::value_at(event, {"count"});
      value && value->is_int64() && value->as_int64() > 0)
    count = value->as_int64();
  if (const auto* series = jsonkit::object_at(event, {"series"})) {
    last = age_of(jsonkit::string_of(series, "lastObservedTime"), now);
    if (const auto* value = series->if_contains("count"); value && value->is_int64())
      count = value->as_int64();
  }
  std::string kind = jsonkit::string_at(event, {"involvedObject", "kind"});
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string object_name = jsonkit::string_at(event, {"involvedObject", "name"});
  std::string source = jsonkit::string_at(event, {"source", "component"});
  if (source.empty()) source = jsonkit::string_at(event, {"reportingComponent"});
  std::string host = jsonkit::string_at(event, {"source", "host"});
  if (host.empty()) host = jsonkit::string_at(event, {"reportingInstance"});
  if (!source.empty() && !host.empty()) source += ", " + host;
  std::string message = jsonkit::string_at(event, {"message"});
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back())))
    message.pop_back();
  return {json::value(last),
          json::value(jsonkit::string_at(event, {"type"})),
          json::value(jsonkit::string_at(event, {"reason"})),
          json::value(object_name.empty() ? kind : kind + "/" + object_name),
          json::value(jsonkit::string_at(event, {"involvedObject", "fieldPath"})),
          json::value(source),
          json::value(message),
          json::value(first),
          json::value(count),
          json::value(name_of(event))};
}

Cells namespace_cells(const json::value& ns, const json::array&, Clock::time_point now) {
  return {json::value(name_of(ns)), json::value(jsonkit::string_at(ns, {"status", "phase"})),
          json::value(age(ns, now))};
}

Cells config_map_cells(const json::value& map, const json::array&, Clock::time_point now) {
  return {json::value(name_of(map)),
          json::value(count_at(map, {"data"}) + count_at(map, {"binaryData"})),
          json::value(age(map, now))};
}

Cells secret_cells(const json::value& secret, const json::array&, Clock::time_point now) {
  return {json::value(name_of(secret)), json::value(jsonkit::string_at(secret, {"type"})),
          json::value(count_at(secret, {"data"})), json::value(age(secret, now))};
}

Cells lease_cells(const json::value& lease, const json::array&, Clock::time_point now) {
  return {json::value(name_of(lease)),
          json::value(jsonkit::string_at(lease, {"spec", "holderIdentity"})),
          json::value(age(lease, now))};
}

Cells resource_slice_cells(const json::value& slice, const json::array&, Clock::time_point now) {
  return {json::value(name_of(slice)), json::value(jsonkit::string_at(slice, {"spec", "nodeName"})),
          json::value(jsonkit::string_at(slice, {"spec", "driver"})),
          json::value(jsonkit::string_at(slice, {"spec", "pool", "name"})),
          json::value(age(slice, now))};
}

json::array names(std::initializer_list<std::pair<std::string_view, std::int64_t>> columns,
                  std::string_view type = "string") {
  json::array out{column("Name", "string", kName, 0, "name")};
  for (const auto& [name, priority] : columns)
    out.push_back(name == "Age" ? column("Age", "string", kAge)
                                : column(name, type, name, priority));
  return out;
}

}  // namespace

std::optional<TableColumns> builtin_table_columns(const ResourceInfo& info) {
  const std::string& group = info.type.group;
  const std::string& resource = info.type.resource;
  if (group.empty() && resource == "nodes")
    return TableColumns{names({{"Status", 0},
                               {"Roles", 0},
                               {"Age", 0},
                               {"Version", 0},
                               {"Internal-IP", 1},
                               {"External-IP", 1},
                               {"OS-Image", 1},
                               {"Kernel-Version", 1},
                               {"Container-Runtime", 1}}),
                        node_cells};
  if (group.empty() && resource == "pods")
    return TableColumns{names({{"Ready", 0},
                               {"Status", 0},
                               {"Restarts", 0},
                               {"Age", 0},
                               {"IP", 1},
                               {"Node", 1},
                               {"Nominated Node", 1},
                               {"Readiness Gates", 1}}),
                        pod_cells};
  if (resource == "events" && (group.empty() || group == "events.k8s.io")) {
    json::array definitions;
    for (const auto& [name, priority] :
         std::initializer_list<std::pair<std::string_view, std::int64_t>>{{"Last Seen", 0},
                                                                          {"Type", 0},
                                                                          {"Reason", 0},
                                                                          {"Object", 0},
                                                                          {"Subobject", 1},
                                                                          {"Source", 1},
                                                                          {"Message", 0},
                                                                          {"First Seen", 1},
                                                                          {"Count", 1}})
      definitions.push_back(column(name, "string", name, priority));
    definitions.push_back(column("Name", "string", kName, 1, "name"));
    return TableColumns{std::move(definitions), event_cells};
  }
  if (group.empty() && resource == "namespaces")
    return TableColumns{names({{"Status", 0}, {"Age", 0}}), namespace_cells};
  if (group.empty() && resource == "configmaps") {
    json::array definitions = names({{"Age", 0}});
    definitions.insert(definitions.begin() + 1, column("Data", "string", "Data"));
    return TableColumns{std::move(definitions), config_map_cells};
  }
  if (group.empty() && resource == "secrets") {
    json::array definitions = names({{"Type", 0}, {"Age", 0}});
    definitions.insert(definitions.begin() + 2, column("Data", "string", "Data"));
    return TableColumns{std::move(definitions), secret_cells};
  }
  if (group == "coordination.k8s.io" && resource == "leases")
    return TableColumns{names({{"Holder", 0}, {"Age", 0}}), lease_cells};
  if (group == "resource.k8s.io" && resource == "resourceslices")
    return TableColumns{names({{"Node", 0}, {"Driver", 0}, {"Pool", 0}, {"Age", 0}}),
                        resource_slice_cells};
  return storage_table_columns(info);
}

}  // namespace nvcre::sim
