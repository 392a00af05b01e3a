#include "measure/log_profile.hpp"

#include "jsonkit/numbers.hpp"
#include "jsonkit/yaml.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace nvcre::measure {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n\v\f");
  return text.substr(first, last - first + 1);
}

// `text` in double quotes on one line: control characters are escaped, the rest is kept as
// written so a regex reads as its author wrote it.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned char>(c));
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Dividing (not multiplying by 1e-3) keeps 900000 us exactly 0.9 s, as the reference computes it.
double units_per_second(std::string_view unit) {
  if (unit == "ms") return 1e3;
  if (unit == "us") return 1e6;
  return 1.0;
}

}  // namespace

CaptureType capture_type(std::string_view name) {
  static constexpr std::string_view kInts[] = {"globalStep", "iteration", "epoch", "step", "size"};
  static constexpr std::string_view kFloats[] = {"stepTiming",   "loss",  "tflops", "elapsedTime",
                                                 "saveDuration", "algBW", "busBW"};
  if (name == "timestamp") return CaptureType::Time;
  if (std::find(std::begin(kInts), std::end(kInts), name) != std::end(kInts))
    return CaptureType::Int;
  if (std::find(std::begin(kFloats), std::end(kFloats), name) != std::end(kFloats))
    return CaptureType::Float;
  return CaptureType::String;
}

std::optional<std::int64_t> parse_int_capture(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  return jsonkit::whole_number<std::int64_t>(text);
}

std::optional<double> parse_float_capture(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string with_python_group_names(std::string_view regex) {
  std::string out;
  out.reserve(regex.size() + 8);
  bool in_class = false;
  for (std::size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    out += c;
    if (c == '\\' && i + 1 < regex.size()) {
      out += regex[++i];
    } else if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
      // A ']' right after '[' or '[^' is a member, not the end of the class.
      if (i + 1 < regex.size() && regex[i + 1] == '^') out += regex[++i];
      if (i + 1 < regex.size() && regex[i + 1] == ']') out += regex[++i];
    } else if (c == '(' && regex.substr(i + 1, 2) == "?<" && i + 3 < regex.size() &&
               regex[i + 3] != '=' && regex[i + 3] != '!') {
      out += "?P<";
      i += 2;
    }
  }
  return out;
}

CompiledPattern::CompiledPattern(std::string name, const api::EventPattern& pattern)
    : name_(std::move(name)), regex_(pattern.regex) {
  const std::string where = "patterns." + name_;
  if (pattern.regex.empty()) throw ProfileError(where + ": regex is empty");
  RE2::Options options;
  options.set_log_errors(false);
  auto compiled = std::make_shared<const RE2>(with_python_group_names(pattern.regex), options);
  if (!compiled->ok()) {
    throw ProfileError(where + ": invalid regex " + quoted(pattern.regex) + ": " +
                       compiled->error());
  }
  group_names_.assign(static_cast<std::size_t>(compiled->NumberOfCapturingGroups()), "");
  for (const auto& [index, group] : compiled->CapturingGroupNames()) {
    group_names_[static_cast<std::size_t>(index - 1)] = group;
  }
  compiled_ = std::move(compiled);
  if (!pattern.example.empty() && !matches(pattern.example)) {
    throw ProfileError(where + ": example " + quoted(pattern.example) + " does not match regex " +
                       quoted(pattern.regex));
  }
  for (const auto& [group, unit] : pattern.units) {
    if (unit != "s" && unit != "ms" && unit != "us") {
      throw ProfileError(where + ".units." + group + ": unit " + quoted(unit) +
                         " is not one of s, ms, us");
    }
    units_.emplace(group, unit);
  }
}

bool CompiledPattern::has_group(std::string_view group) const {
  return std::find(group_names_.begin(), group_names_.end(), group) != group_names_.end();
}

bool CompiledPattern::matches(std::string_view text) const {
  return compiled_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(),
                          RE2::UNANCHORED, nullptr, 0);
}

std::optional<Captures> CompiledPattern::match(std::string_view text) const {
  std::vector<re2::StringPiece> groups(group_names_.size() + 1);
  if (!compiled_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED,
                        groups.data(), static_cast<int>(groups.size()))) {
    return std::nullopt;
  }
  Captures captures;
  for (std::size_t i = 0; i < group_names_.size(); ++i) {
    const auto& piece = groups[i + 1];
    if (group_names_[i].empty() || piece.data() == nullptr) continue;
    captures.insert_or_assign(group_names_[i], std::string(piece.data(), piece.size()));
  }
  return captures;
}

std::string_view CompiledPattern::unit_of(std::string_view group) const {
  const auto found = units_.find(group);
  return found == units_.end() ? std::string_view("s") : std::string_view(found->second);
}

std::optional<double> CompiledPattern::seconds(const Captures& captures,
                                               std::string_view group) const {
  const auto found = captures.find(group);
  if (found == captures.end()) return std::nullopt;
  const auto value = parse_float_capture(found->second);
  if (!value) return std::nullopt;
  return *value / units_per_second(unit_of(group));
}

const CompiledPattern* CompiledProfile::pattern(std::string_view pattern_name) const {
  for (const auto& compiled : patterns) {
    if (compiled.name() == pattern_name) return &compiled;
  }
  return nullptr;
}

const std::vector<std::string_view>& pattern_names() {
  static const std::vector<std::string_view> names = {
      "trainingStep",     "checkpointSave",   "checkpointDone", "checkpointRestore",
      "checkpointLoaded", "applicationStart", "warmupStep",     "bandwidthResult"};
  return names;
}

CompiledProfile compile_profile(const api::LogProfile& profile) {
  CompiledProfile out;
  out.name = profile.metadata.name;
  out.resource_version = profile.metadata.resourceVersion;
  out.timestamp_layout = profile.spec.timestamp.layout;
  out.warmup_steps = profile.spec.warmupSteps;
  out.log_interval = profile.spec.logInterval;
  out.worker_strategy = profile.spec.workerStrategy;
  out.container_name = profile.spec.containerName;
  const auto& set = profile.spec.patterns;
  const std::optional<api::EventPattern>* in_order[] = {
      &set.trainingStep,     &set.checkpointSave,   &set.checkpointDone, &set.checkpointRestore,
      &set.checkpointLoaded, &set.applicationStart, &set.warmupStep,     &set.bandwidthResult};
  for (std::size_t i = 0; i < pattern_names().size(); ++i) {
    if (*in_order[i]) out.patterns.emplace_back(std::string(pattern_names()[i]), **in_order[i]);
  }
  if (const auto* bandwidth = out.bandwidth_result()) {
    std::string missing;
    for (const char* group : {"size", "algBW", "busBW"}) {
      if (!bandwidth->has_group(group)) missing += std::string(missing.empty() ? "" : ", ") + group;
    }
    if (!missing.empty()) {
      throw ProfileError(
          "patterns.bandwidthResult: regex must have the named groups size, algBW "
          "and busBW (missing: " +
          missing + ")");
    }
  }
  return out;
}

api::LogProfile read_log_profile(std::string_view manifest) {
  const boost::json::value document = jsonkit::parse_yaml(manifest);
  const auto* object = document.if_object();
  if (object == nullptr) throw ProfileError("a LogProfile manifest must be a YAML mapping");
  const auto* kind = object->if_contains("kind");
  const std::string_view kind_text =
      kind != nullptr && kind->is_string() ? std::string_view(kind->as_string()) : "";
  if (kind_text != api::LogProfile::kKind) {
    throw ProfileError("expected kind LogProfile, got \"" + std::string(kind_text) + "\"");
  }
  const auto* version = object->if_contains("apiVersion");
  const std::string_view version_text =
      version != nullptr && version->is_string() ? std::string_view(version->as_string()) : "";
  if (version_text != api::kApiVersion) {
    throw ProfileError("apiVersion: unsupported apiVersion \"" + std::string(version_text) +
                       "\" for kind LogProfile: expected " + std::string(api::kApiVersion));
  }
  return api::decode<api::LogProfile>(document);
}

}  // namespace nvcre::measure
