#include "cli/logprofile_command.hpp"

#include "cli/read_file.hpp"
#include "jsonkit/yaml.hpp"
#include "measure/bandwidth.hpp"
#include "measure/log_events.hpp"
#include "measure/log_profile.hpp"

#include <cstdio>
#include <filesystem>
#include <ostream>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;
namespace {

std::string_view stem_of(std::string_view path) {
  const auto slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return name.substr(0, name.rfind('.'));
}

std::string optional_time(const std::optional<k8s::Clock::time_point>& time) {
  return time ? k8s::format_rfc3339_nano(*time) : std::string();
}

// A capture as its api type reads it: numbers as numbers (durations in seconds), times in RFC 3339;
// text that does not read as its type stays text, so the report shows what was captured.
json::value typed_capture(const measure::CompiledPattern& pattern, const std::string& name,
                          const std::string& text, const measure::LogEvent& event) {
  switch (measure::capture_type(name)) {
    case measure::CaptureType::Int:
      if (auto value = measure::parse_int_capture(text)) return *value;
      break;
    case measure::CaptureType::Float:
      if (auto value = pattern.seconds({{name, text}}, name)) return *value;
      break;
    case measure::CaptureType::Time:
      if (event.timestamp_error.empty() && event.timestamp)
        return json::value(k8s::format_rfc3339_nano(*event.timestamp));
      break;
    default:
      break;
  }
  return json::value(text);
}

json::object bandwidth_report(const measure::CompiledProfile& compiled,
                              std::span<const measure::LogLine> lines) {
  const auto scan = measure::scan_bandwidth(compiled, lines);
  json::array results;
  for (const auto& result : measure::average_rows(scan.rows))
    results.push_back(api::encode(result));
  json::array transports;
  for (const auto& name : scan.transports) transports.emplace_back(name);
  json::object out{{"rows", static_cast<std::int64_t>(scan.rows.size())},
                   {"results", results},
                   {"transport", transports}};
  if (const auto peak = measure::peak_bus_bandwidth(measure::average_rows(scan.rows)))
    out["peakBusBW"] = measure::format_gbps(*peak);
  return out;
}

json::array events_report(const measure::CompiledProfile& compiled,
                          std::span<const measure::LogLine> lines) {
  json::array events;
  for (const auto& event : measure::scan_events(compiled, lines)) {
    const auto* pattern = compiled.pattern(event.pattern);
    json::object captures;
    for (const auto& [name, text] : event.captures)
      captures[name] = typed_capture(*pattern, name, text, event);
    json::object entry{{"line", static_cast<std::int64_t>(event.line + 1)},
                       {"pattern", event.pattern}};
    if (event.timestamp) entry["timestamp"] = optional_time(event.timestamp);
    if (!event.timestamp_error.empty()) entry["timestampError"] = event.timestamp_error;
    if (!captures.empty()) entry["captures"] = captures;
    if (event.warmup) entry["warmup"] = true;
    if (event.pattern == "trainingStep" && compiled.log_interval && *compiled.log_interval > 1) {
      // The goodput parser ignores steps off the logging interval (their timing includes the
      // restart); the global step falls back to the iteration.
      auto step = measure::parse_int_capture(
          event.captures.count("globalStep") ? event.captures.at("globalStep") : "");
      if (!step || *step == 0) {
        step = measure::parse_int_capture(
            event.captures.count("iteration") ? event.captures.at("iteration") : "");
      }
      if (step && *step % *compiled.log_interval != 0) entry["ignoredByLogInterval"] = true;
    }
    events.push_back(std::move(entry));
  }
  return events;
}

// A capture for people: numbers as written (%g), text unquoted.
std::string plain(const json::value& value) {
  if (value.is_string()) return std::string(value.get_string());
  if (value.is_double()) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.10g", value.get_double());
    return buffer;
  }
  return json::serialize(value);
}

void print_text(const json::object& report, std::ostream& out) {
  out << "LogProfile " << report.at("profile").as_string().c_str() << ": "
      << report.at("lines").as_int64() << " lines";
  if (const auto* overlong = report.if_contains("overlongLines"))
    out << " (" << overlong->as_int64() << " longer than 1 MiB, skipped)";
  out << "\n";
  if (const auto* bandwidth = report.if_contains("bandwidth")) {
    const auto& section = bandwidth->as_object();
    out << "\nBandwidth rows: " << section.at("rows").as_int64() << "\n";
    char line[160];
    std::snprintf(line, sizeof line, "%14s %12s %12s %8s\n", "SIZE(B)", "ALGBW(GB/s)",
                  "BUSBW(GB/s)", "SAMPLES");
    out << line;
    for (const auto& item : section.at("results").as_array()) {
      const auto& result = item.as_object();
      std::snprintf(line, sizeof line, "%14lld %12s %12s %8lld\n",
                    static_cast<long long>(result.at("sizeBytes").as_int64()),
                    result.at("algBW").as_string().c_str(), result.at("busBW").as_string().c_str(),
                    static_cast<long long>(result.at("samples").as_int64()));
      out << line;
    }
    std::string transports;
    for (const auto& name : section.at("transport").as_array())
      transports += (transports.empty() ? "" : ", ") + std::string(name.as_string());
    out << "Transport: " << (transports.empty() ? "(none seen)" : transports) << "\n";
  }
  if (const auto* events = report.if_contains("events")) {
    out << "\nEvents: " << events->as_array().size() << "\n";
    for (const auto& item : events->as_array()) {
      const auto& event = item.as_object();
      out << "  line " << event.at("line").as_int64() << "  "
          << event.at("pattern").as_string().c_str();
      if (const auto* time = event.if_contains("timestamp"))
        out << "  " << time->as_string().c_str();
      if (event.contains("warmup")) out << "  (warmup)";
      if (event.contains("ignoredByLogInterval")) out << "  (off the logInterval: ignored)";
      if (const auto* captures = event.if_contains("captures")) {
        for (const auto& [name, value] : captures->as_object())
          out << "  " << std::string_view(name) << "=" << plain(value);
      }
      if (const auto* error = event.if_contains("timestampError"))
        out << "\n      timestamp not read: " << error->as_string().c_str();
      out << "\n";
    }
  }
}

}  // namespace

api::LogProfile load_log_profile(const std::string& profile) {
  std::error_code ignored;
  if (std::filesystem::is_regular_file(profile, ignored)) {
    try {
      return measure::read_log_profile(read_text_file(profile));
    } catch (const std::exception& error) {
      throw std::runtime_error("parse LogProfile " + profile + ": " + error.what());
    }
  }
  std::string shipped;
  for (const auto& file : embedded_logprofile_files()) {
    const auto decoded = measure::read_log_profile(file.content);
    if (decoded.metadata.name == profile || stem_of(file.name) == profile) return decoded;
    shipped += (shipped.empty() ? "" : ", ") + decoded.metadata.name;
  }
  throw std::runtime_error("LogProfile \"" + profile +
                           "\" is neither a file nor a shipped profile (shipped: " + shipped + ")");
}

json::object logprofile_test_report(const api::LogProfile& profile, std::string_view log) {
  measure::CompiledProfile compiled;
  try {
    compiled = measure::compile_profile(profile);
  } catch (const measure::ProfileError& error) {
    throw measure::ProfileError("LogProfile " + profile.metadata.name + ": " + error.what());
  }
  const auto split = measure::split_log_lines(log);
  const auto lines = split.all_lines();
  json::object report{{"profile", profile.metadata.name},
                      {"lines", static_cast<std::int64_t>(lines.size())}};
  if (split.overlong_lines != 0)
    report["overlongLines"] = static_cast<std::int64_t>(split.overlong_lines);
  if (compiled.bandwidth_result() != nullptr)
    report["bandwidth"] = bandwidth_report(compiled, lines);
  if (compiled.patterns.size() > (compiled.bandwidth_result() != nullptr ? 1U : 0U))
    report["events"] = events_report(compiled, lines);
  return report;
}

void print_logprofile_report(const json::object& report, std::string_view output,
                             std::ostream& out) {
  if (output == "json") {
    out << jsonkit::to_pretty_json(report) << "\n";
  } else {
    print_text(report, out);
  }
}

void run_logprofile_test(const LogProfileTestOptions& options, std::ostream& out) {
  const api::LogProfile profile = load_log_profile(options.profile);
  std::string log;
  std::error_code ignored;
  if (std::filesystem::is_directory(options.log_file, ignored))
    throw std::runtime_error("read log: " + options.log_file + " is a directory");
  try {
    log = read_text_file(options.log_file);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("read log: ") + error.what());
  }
  print_logprofile_report(logprofile_test_report(profile, log), options.output, out);
}

}  // namespace nvcre::cli
