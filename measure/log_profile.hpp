#pragma once
// LogProfile compilation: every pattern's regex compiled with RE2 (Go's regexp syntax; both
// (?P<name>...) and (?<name>...) name a group), every example checked against its regex, every
// unit resolved to seconds. A profile that compiles can be used on any log; one that does not is
// reported with a one-line ProfileError naming the pattern, as the measurement controllers put it
// in their LogProfileNotFound condition and `nvcrectl logprofile test` prints it.
#include "api/measurement.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace nvcre::measure {

struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The type of a named capture: int = globalStep, iteration, epoch, step, size; float =
// stepTiming, loss, tflops, elapsedTime, saveDuration, algBW, busBW; time = timestamp; every other
// name (path, ...) is a string.
enum class CaptureType { Int, Float, String, Time };
CaptureType capture_type(std::string_view name);

// A capture's text as Go's strconv reads it (surrounding spaces trimmed, the whole text a number;
// floats take exponents such as 1.218472E+01); nullopt when it is not one.
std::optional<std::int64_t> parse_int_capture(std::string_view text);
std::optional<double> parse_float_capture(std::string_view text);

// name -> captured text of one match (groups that did not take part are absent).
using Captures = std::map<std::string, std::string, std::less<>>;

class CompiledPattern {
 public:
  // Throws ProfileError: invalid regex, example that does not match, unknown unit.
  CompiledPattern(std::string name, const api::EventPattern& pattern);

  const std::string& name() const { return name_; }  // "trainingStep"
  const std::string& regex() const { return regex_; }
  bool has_group(std::string_view group) const;

  // The named captures of the first match anywhere in `text` (Go's FindStringSubmatch), nullopt
  // when the text does not match.
  std::optional<Captures> match(std::string_view text) const;
  bool matches(std::string_view text) const;

  // A duration capture in seconds (the pattern's unit applied; seconds when it names none).
  std::optional<double> seconds(const Captures& captures, std::string_view group) const;
  // The unit named for `group` ("s" when none).
  std::string_view unit_of(std::string_view group) const;

 private:
  std::string name_;
  std::string regex_;
  std::shared_ptr<const re2::RE2> compiled_;
  std::vector<std::string> group_names_;  // by group number - 1; "" for unnamed groups
  std::map<std::string, std::string, std::less<>> units_;  // group -> s | ms | us
};

struct CompiledProfile {
  std::string name;
  std::string resource_version;
  std::string timestamp_layout;
  std::optional<std::int64_t> warmup_steps;
  std::optional<std::int64_t> log_interval;
  std::optional<api::WorkerStrategySpec> worker_strategy;
  std::string container_name;
  std::vector<CompiledPattern> patterns;  // those the profile defines, in LogPatternSet order

  const CompiledPattern* pattern(std::string_view pattern_name) const;
  const CompiledPattern* bandwidth_result() const { return pattern("bandwidthResult"); }
};

// The LogPatternSet keys in declaration order (trainingStep ... bandwidthResult).
const std::vector<std::string_view>& pattern_names();

// Throws ProfileError `patterns.<name>: ...` for the first pattern that does not compile, and for a
// bandwidthResult without the groups size, algBW and busBW.
CompiledProfile compile_profile(const api::LogProfile& profile);

// A LogProfile manifest (YAML or JSON, one document) decoded; throws ProfileError when it is not
// a nvcre.nvidia.com/v1alpha1 LogProfile, and api::DecodeError for unknown or mistyped fields.
api::LogProfile read_log_profile(std::string_view manifest);

// `regex` with every (?<name> group spelled (?P<name>, the one form RE2 of Debian bookworm reads.
std::string with_python_group_names(std::string_view regex);

}  // namespace nvcre::measure
