#include "sim/log_query.hpp"

#include "jsonkit/paths.hpp"
#include "k8s/rfc3339.hpp"
#include "sim/api_error.hpp"
#include "sim/query_params.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace nvcre::sim {

namespace json = boost::json;
using Clock = std::chrono::system_clock;

namespace {

const std::string* find_value(const std::map<std::string, std::string>& query,
                              const std::string& key) {
  auto it = query.find(key);
  return it == query.end() || it->second.empty() ? nullptr : &it->second;
}

// Go's strconv messages, which the API server returns for a parameter it cannot decode.
std::int64_t parse_int(const std::string& text) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range)
    throw bad_request("strconv.ParseInt: parsing \"" + text + "\": value out of range");
  if (error != std::errc() || end != text.data() + text.size())
    throw bad_request("strconv.ParseInt: parsing \"" + text + "\": invalid syntax");
  return value;
}

std::vector<std::string> names_of(const json::value& pod, std::string_view list) {
  std::vector<std::string> names;
  if (const auto* containers = jsonkit::find_array(pod.as_object(), {"spec", list}))
    for (const auto& container : *containers)
      if (auto name = jsonkit::string_of(container.if_object(), "name"); !name.empty())
        names.push_back(std::move(name));
  return names;
}

std::string bracketed(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "]";
}

}  // namespace

PodLogOptions parse_pod_log_options(const std::map<std::string, std::string>& query,
                                    const std::string& pod_name) {
  PodLogOptions options;
  if (const auto* container = find_value(query, "container")) options.container = *container;
  options.timestamps = query_flag(query, "timestamps");
  options.previous = query_flag(query, "previous");  // `follow` is accepted and not kept
  if (const auto* value = find_value(query, "sinceTime")) {
    options.since_time = k8s::parse_rfc3339(*value);
    if (!options.since_time)
      throw bad_request("parsing time \"" + *value +
                        "\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"" + *value +
                        "\" as an RFC 3339 time");
  }
  if (const auto* value = find_value(query, "sinceSeconds"))
    options.since_seconds = parse_int(*value);
  if (const auto* value = find_value(query, "tailLines")) options.tail_lines = parse_int(*value);
  if (const auto* value = find_value(query, "limitBytes")) options.limit_bytes = parse_int(*value);

  std::vector<StatusCause> causes;
  auto invalid_value = [&](const char* field, std::int64_t value, const char* message) {
    causes.push_back(
        {"FieldValueInvalid", "Invalid value: " + std::to_string(value) + ": " + message, field});
  };
  if (options.tail_lines && *options.tail_lines < 0)
    invalid_value("tailLines", *options.tail_lines, "must be greater than or equal to 0");
  if (options.limit_bytes && *options.limit_bytes < 1)
    invalid_value("limitBytes", *options.limit_bytes, "must be greater than 0");
  if (options.since_seconds && options.since_time)
    causes.push_back({"FieldValueForbidden",
                      "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
                      ""});
  else if (options.since_seconds && *options.since_seconds < 1)
    invalid_value("sinceSeconds", *options.since_seconds, "must be greater than 0");
  if (!causes.empty()) throw invalid("", "PodLogOptions", pod_name, std::move(causes));
  return options;
}

std::string resolve_log_container(const json::value& pod, const std::string& requested) {
  const std::string pod_name = jsonkit::string_at(pod, {"metadata", "name"});
  const auto containers = names_of(pod, "containers");
  if (requested.empty()) {
    if (containers.size() == 1) return containers.front();
    const auto init = names_of(pod, "initContainers");
    std::string message = "a container name must be specified for pod " + pod_name +
                          ", choose one of: " + bracketed(containers);
    if (!init.empty()) message += " or one of the init containers: " + bracketed(init);
    throw bad_request(message);
  }
  for (std::string_view list : {"containers", "initContainers", "ephemeralContainers"}) {
    const auto names = names_of(pod, list);
    if (std::find(names.begin(), names.end(), requested) != names.end()) return requested;
  }
  throw bad_request("container " + requested + " is not valid for pod " + pod_name);
}

std::string kubelet_timestamp(Clock::time_point time) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(time);
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(time - seconds).count();
  std::string whole = k8s::format_rfc3339(seconds);  // "...:05Z"
  whole.pop_back();
  char fraction[16];
  std::snprintf(fraction, sizeof fraction, ".%09lldZ", static_cast<long long>(nanos));
  return whole + fraction;
}

std::string render_pod_log(const std::vector<LogLine>& lines, const PodLogOptions& options,
                           Clock::time_point now) {
  std::size_t first = 0;
  if (options.tail_lines && static_cast<std::uint64_t>(*options.tail_lines) < lines.size())
    first = lines.size() - static_cast<std::size_t>(*options.tail_lines);
  std::optional<Clock::time_point> since;
  if (options.since_time) since = std::chrono::floor<std::chrono::seconds>(*options.since_time);
  if (options.since_seconds) since = now - std::chrono::seconds(*options.since_seconds);
  std::string out;
  for (std::size_t i = first; i < lines.size(); ++i) {
    if (since && lines[i].time < *since) continue;
    if (options.timestamps) out += kubelet_timestamp(lines[i].time) + " ";
    out += lines[i].text;
    out += '\n';
    if (options.limit_bytes && out.size() >= static_cast<std::uint64_t>(*options.limit_bytes))
      break;
  }
  if (options.limit_bytes && out.size() > static_cast<std::uint64_t>(*options.limit_bytes))
    out.resize(static_cast<std::size_t>(*options.limit_bytes));
  return out;
}

std::vector<LogLine> parse_replayed_log(std::string_view text, Clock::time_point now) {
  auto lines = split_log_lines(text, now);
  for (auto& line : lines) {
    if (!line.text.empty() && line.text.back() == '\r') line.text.pop_back();
    const auto space = line.text.find(' ');
    if (space == std::string::npos) continue;
    if (auto time = k8s::parse_rfc3339(std::string_view(line.text).substr(0, space))) {
      line.time = *time;
      line.text.erase(0, space + 1);
    }
  }
  return lines;
}

}  // namespace nvcre::sim
