// The printers of PersistentVolume, PersistentVolumeClaim and batch/v1 Job.
#include "jsonkit/paths.hpp"
#include "k8s/rfc3339.hpp"
#include "sim/table.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

using Cells = std::vector<json::value>;

std::string or_else(std::string value, const char* fallback) {
  return value.empty() ? std::string(fallback) : value;
}

std::string name_of(const json::value& object) {
  return jsonkit::string_at(object, {"metadata", "name"});
}

std::string age(const json::value& object, Clock::time_point now) {
  return age_of(jsonkit::string_at(object, {"metadata", "creationTimestamp"}), now);
}

// "RWO,ROX": the short forms kubectl prints.
std::string access_modes(const json::value* modes) {
  std::string out;
  if (!modes || !modes->is_array()) return out;
  for (const auto& mode : modes->as_array()) {
    const std::string text = mode.is_string() ? std::string(mode.as_string()) : std::string();
    const std::string short_form = text == "ReadWriteOnce"      ? "RWO"
                                   : text == "ReadOnlyMany"     ? "ROX"
                                   : text == "ReadWriteMany"    ? "RWX"
                                   : text == "ReadWriteOncePod" ? "RWOP"
                                                                : text;
    out += (out.empty() ? "" : ",") + short_form;
  }
  return out;
}

std::string phase_or_terminating(const json::value& object) {
  if (!jsonkit::string_at(object, {"metadata", "deletionTimestamp"}).empty()) return "Terminating";
  return jsonkit::string_at(object, {"status", "phase"});
}

Cells volume_cells(const json::value& pv, const json::array&, Clock::time_point now) {
  std::string claim = jsonkit::string_at(pv, {"spec", "claimRef", "name"});
  if (!claim.empty())
    claim = jsonkit::string_at(pv, {"spec", "claimRef", "namespace"}) + "/" + claim;
  return {json::value(name_of(pv)),
          json::value(jsonkit::string_at(pv, {"spec", "capacity", "storage"})),
          json::value(access_modes(jsonkit::value_at(pv, {"spec", "accessModes"}))),
          json::value(jsonkit::string_at(pv, {"spec", "persistentVolumeReclaimPolicy"})),
          json::value(phase_or_terminating(pv)),
          json::value(claim),
          json::value(jsonkit::string_at(pv, {"spec", "storageClassName"})),
          json::value(
              or_else(jsonkit::string_at(pv, {"spec", "volumeAttributesClassName"}), "<unset>")),
          json::value(jsonkit::string_at(pv, {"status", "reason"})),
          json::value(age(pv, now)),
          json::value(or_else(jsonkit::string_at(pv, {"spec", "volumeMode"}), "<unset>"))};
}

Cells claim_cells(const json::value& pvc, const json::array&, Clock::time_point now) {
  const bool bound = !jsonkit::string_at(pvc, {"spec", "volumeName"}).empty();
  return {json::value(name_of(pvc)),
          json::value(phase_or_terminating(pvc)),
          json::value(jsonkit::string_at(pvc, {"spec", "volumeName"})),
          json::value(bound ? jsonkit::string_at(pvc, {"status", "capacity", "storage"}) : ""),
          json::value(bound ? access_modes(jsonkit::value_at(pvc, {"status", "accessModes"})) : ""),
          json::value(jsonkit::string_at(pvc, {"spec", "storageClassName"})),
          json::value(
              or_else(jsonkit::string_at(pvc, {"spec", "volumeAttributesClassName"}), "<unset>")),
          json::value(age(pvc, now)),
          json::value(or_else(jsonkit::string_at(pvc, {"spec", "volumeMode"}), "<unset>"))};
}

std::int64_t int_at(const json::value& object, std::initializer_list<std::string_view> path,
                    std::int64_t fallback) {
  const auto* value = jsonkit::value_at(object, path);
  return value && value->is_int64() ? value->as_int64() : fallback;
}

std::string job_status(const json::value& job) {
  for (const char* type :
       {"Failed", "Complete", "Suspended", "FailureTarget", "SuccessCriteriaMet"})
    if (const auto* conditions = jsonkit::value_at(job, {"status", "conditions"});
        conditions && conditions->is_array())
      for (const auto& condition : conditions->as_array())
        if (jsonkit::string_of(condition.if_object(), "type") == type &&
            jsonkit::string_of(condition.if_object(), "status") == "True")
          return type == std::string("FailureTarget") ? "Failing" : type;
  return "Running";
}

Cells job_cells(const json::value& job, const json::array&, Clock::time_point now) {
  const std::int64_t succeeded = int_at(job, {"status", "succeeded"}, 0);
  const std::int64_t parallelism = int_at(job, {"spec", "parallelism"}, 1);
  std::string completions = std::to_string(succeeded) + "/";
  if (const auto* wanted = jsonkit::value_at(job, {"spec", "completions"});
      wanted && wanted->is_int64())
    completions += std::to_string(wanted->as_int64());
  else
    completions += parallelism > 1 ? "1 of " + std::to_string(parallelism) : "1";
  std::string duration;
  if (auto start = k8s::parse_rfc3339(jsonkit::string_at(job, {"status", "startTime"}))) {
    auto end = k8s::parse_rfc3339(jsonkit::string_at(job, {"status", "completionTime"}));
    duration = human_duration(
        std::chrono::duration_cast<std::chrono::nanoseconds>((end ? *end : now) - *start));
  }
  std::string containers, images, selector;
  if (const auto* list = jsonkit::value_at(job, {"spec", "template", "spec", "containers"});
      list && list->is_array())
    for (const auto& container : list->as_array()) {
      containers +=
          (containers.empty() ? "" : ",") + jsonkit::string_of(container.if_object(), "name");
      images += (images.empty() ? "" : ",") + jsonkit::string_of(container.if_object(), "image");
    }
  if (const auto* labels = jsonkit::object_at(job, {"spec", "selector", "matchLabels"}))
    for (const auto& [key, value] : *labels)
      selector += (selector.empty() ? "" : ",") + std::string(key) + "=" +
                  (value.is_string() ? std::string(value.as_string()) : json::serialize(value));
  return {json::value(name_of(job)),  json::value(job_status(job)),
          json::value(completions),   json::value(duration),
          json::value(age(job, now)), json::value(containers),
          json::value(images),        json::value(or_else(selector, "<none>"))};
}

json::array columns(std::initializer_list<std::pair<std::string_view, std::int64_t>> list) {
  json::array out{column("Name", "string", "Name must be unique within a namespace.", 0, "name")};
  for (const auto& [name, priority] : list) out.push_back(column(name, "string", name, priority));
  return out;
}

}  // namespace

std::optional<TableColumns> storage_table_columns(const ResourceInfo& info) {
  const std::string& group = info.type.group;
  const std::string& resource = info.type.resource;
  if (group.empty() && resource == "persistentvolumes")
    return TableColumns{columns({{"Capacity", 0},
                                 {"Access Modes", 0},
                                 {"Reclaim Policy", 0},
                                 {"Status", 0},
                                 {"Claim", 0},
                                 {"StorageClass", 0},
                                 {"VolumeAttributesClass", 0},
                                 {"Reason", 0},
                                 {"Age", 0},
                                 {"VolumeMode", 1}}),
                        volume_cells};
  if (group.empty() && resource == "persistentvolumeclaims")
    return TableColumns{columns({{"Status", 0},
                                 {"Volume", 0},
                                 {"Capacity", 0},
                                 {"Access Modes", 0},
                                 {"StorageClass", 0},
                                 {"VolumeAttributesClass", 0},
                                 {"Age", 0},
                                 {"VolumeMode", 1}}),
                        claim_cells};
  if (group == "batch" && resource == "jobs")
    return TableColumns{columns({{"Status", 0},
                                 {"Completions", 0},
                                 {"Duration", 0},
                                 {"Age", 0},
                                 {"Containers", 1},
                                 {"Images", 1},
                                 {"Selector", 1}}),
                        job_cells};
  return std::nullopt;
}

}  // namespace nvcre::sim
