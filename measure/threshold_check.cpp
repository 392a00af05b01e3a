#include "measure/threshold_check.hpp"

#include "api/job.hpp"
#include "cel/go_format.hpp"
#include "cel/program.hpp"
#include "k8s/duration.hpp"
#include "measure/threshold_keys.hpp"

#include <vector>

namespace nvcre::measure {

namespace {

using Outcome = ThresholdVerdict::Outcome;

const cel::Environment& threshold_environment() {
  static const cel::Environment environment{
      {{"value", cel::Type::floating()}},
      cel::Features{},
      "the variable value (double); " + std::string(cel::kLanguageSummary)};
  return environment;
}

ThresholdVerdict verdict(Outcome outcome, std::string_view reason, std::string message) {
  return {outcome, std::string(reason), std::move(message)};
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The messages are the Go implementation's, word for word: %q quoting, %.4f for the measured
// value in a violation, %f in an evaluation error.
std::optional<ThresholdVerdict> judge_one(const std::string& key, const std::string& expression,
                                          double value) {
  const std::string prefix = "Threshold " + cel::quote_go_string(key) + ": ";
  const std::string quoted = cel::quote_go_string(expression);
  const auto invalid = [&](const std::string& text) {
    return verdict(Outcome::InvalidExpression, api::job_reason::kInvalidThresholdExpression,
                   prefix + text);
  };
  std::optional<cel::Program> program;
  try {
    program = cel::Program::compile(expression, threshold_environment());
  } catch (const cel::Error& error) {
    return invalid("compile threshold expression " + quoted + ": compile: " + error.what());
  }
  if (!program->output_type().is(cel::Type::Tag::Bool)) {
    return invalid("compile threshold expression " + quoted +
                   ": expression must return bool, got " + program->output_type().name());
  }
  try {
    if (program->evaluate({{"value", cel::Value::floating(value)}}).as_bool()) return std::nullopt;
  } catch (const cel::Error& error) {
    return invalid("evaluate threshold expression " + quoted +
                   " with value=" + cel::format_go_fixed(value, 6) + ": " + error.detail());
  }
  return verdict(Outcome::Violated, api::job_reason::kThresholdViolated,
                 "Threshold " + cel::quote_go_string(key) + " violated: measured " +
                     cel::format_go_fixed(value, 4) + ", expression: " + expression);
}

}  // namespace

ThresholdVerdict judge_thresholds(const std::map<std::string, std::string>& thresholds,
                                  const std::map<std::string, double>& measured,
                                  k8s::Clock::duration succeeded_for,
                                  k8s::Clock::duration measurement_timeout) {
  // An unknown key can never be measured: waiting for it would only end in a misleading timeout.
  std::vector<std::string> unknown;
  for (const auto& [key, expression] : thresholds) {
    if (!find_threshold_key(key)) unknown.push_back(key);
  }
  if (!unknown.empty()) {
    std::vector<std::string> valid;
    for (const auto& key : kThresholdKeys) valid.emplace_back(key.name);
    return verdict(
        Outcome::UnknownKey, api::job_reason::kUnknownThresholdKey,
        "unknown threshold key(s) [" + join(unknown) + "]; valid keys: [" + join(valid) + "]");
  }
  std::vector<std::string> missing;
  for (const auto& [key, expression] : thresholds) {
    if (!measured.contains(key)) missing.push_back(key);
  }
  if (!missing.empty()) {
    if (succeeded_for > measurement_timeout) {
      return verdict(
          Outcome::MeasurementTimeout, api::job_reason::kMeasurementTimeout,
          "Measurement data not available within " +
              k8s::format_go_duration(
                  std::chrono::duration_cast<std::chrono::nanoseconds>(measurement_timeout)) +
              " for keys: " + cel::format_go_string_list(missing));
    }
    return verdict(
        Outcome::Pending, "",
        "Measurement data not yet available for keys: " + cel::format_go_string_list(missing));
  }
  for (const auto& [key, expression] : thresholds) {
    if (auto failed = judge_one(key, expression, measured.at(key))) return std::move(*failed);
  }
  return verdict(Outcome::Met, api::job_reason::kThresholdsMet,
                 "All performance thresholds satisfied");
}

std::string_view outcome_name(ThresholdVerdict::Outcome outcome) {
  switch (outcome) {
    case Outcome::Pending:
      return "Pending";
    case Outcome::Met:
      return "Met";
    case Outcome::Violated:
      return "Violated";
    case Outcome::MeasurementTimeout:
      return "MeasurementTimeout";
    case Outcome::UnknownKey:
      return "UnknownKey";
    case Outcome::InvalidExpression:
      break;
  }
  return "InvalidExpression";
}

}  // namespace nvcre::measure
