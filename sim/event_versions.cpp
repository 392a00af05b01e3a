#include "sim/event_versions.hpp"

#include <boost/json.hpp>

#include <array>
#include <string_view>
#include <utility>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

// (events.k8s.io/v1 name, core v1 name)
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kRenamed{{
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"reportingController", "reportingComponent"},
    {"deprecatedSource", "source"},
    {"deprecatedCount", "count"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
}};

std::string_view renamed(std::string_view key, EventForm to) {
  for (const auto& [events_v1, core] : kRenamed) {
    if (to == EventForm::Core && key == events_v1) return core;
    if (to == EventForm::EventsV1 && key == core) return events_v1;
  }
  return key;
}

// "/note/x" -> "/message/x" (first segment renamed).
std::string renamed_pointer(std::string_view pointer, EventForm to) {
  if (!pointer.starts_with('/')) return std::string(pointer);
  const std::size_t end = pointer.find('/', 1);
  const std::string_view first = pointer.substr(1, end == std::string_view::npos ? end : end - 1);
  std::string out = "/" + std::string(renamed(first, to));
  if (end != std::string_view::npos) out += pointer.substr(end);
  return out;
}

}  // namespace

json::value convert_event(const json::value& object, EventForm to) {
  if (!object.is_object()) return object;
  const auto& in = object.as_object();
  if (const auto* kind = in.if_contains("kind"); kind && kind->is_string() && *kind != "Event")
    return object;
  json::object out;
  for (const auto& [key, value] : in) {
    if (key == "apiVersion" && value.is_string()) {
      out[key] = to == EventForm::Core ? "v1" : "events.k8s.io/v1";
      continue;
    }
    out[renamed(key, to)] = value;
  }
  return out;
}

json::value convert_event_json_patch(const json::value& patch, EventForm from) {
  if (!patch.is_array()) return patch;
  const EventForm to = from == EventForm::Core ? EventForm::EventsV1 : EventForm::Core;
  json::array out;
  for (const auto& operation : patch.as_array()) {
    json::value converted = operation;
    if (auto* fields = converted.if_object())
      for (const char* key : {"path", "from"})
        if (auto* pointer = fields->if_contains(key); pointer && pointer->is_string())
          *pointer = renamed_pointer(pointer->as_string(), to);
    out.push_back(std::move(converted));
  }
  return out;
}

std::string events_v1_field_selector_to_core(const std::string& selector) {
  std::string out;
  std::size_t start = 0;
  while (start <= selector.size()) {
    std::size_t comma = selector.find(',', start);
    if (comma == std::string::npos) comma = selector.size();
    const std::string_view term(selector.data() + start, comma - start);
    const std::size_t op = term.find_first_of("!=");
    const std::string_view path = term.substr(0, op);
    const std::size_t dot = path.find('.');
    std::string converted(renamed(path.substr(0, dot), EventForm::Core));
    if (dot != std::string_view::npos) converted += path.substr(dot);
    if (op != std::string_view::npos) converted += term.substr(op);
    if (!out.empty() || start > 0) out += ",";
    out += converted;
    start = comma + 1;
  }
  return out;
}

}  // namespace nvcre::sim
