#pragma once
// The performance-threshold verdict of a Succeeded Job: each spec.thresholds entry is a CEL
// expression over the variable `value` (double, the key's measured value) that must be true.
// Pure: the caller collects the measured values (keys with final data only) and the time since
// the Job succeeded, and writes the ValidationFailed condition from the verdict.
//
// The ladder, in this order:
//   1. a key outside the registry (threshold_keys.hpp)  -> UnknownKey, at once (no wait)
//   2. a key without a measured value: Pending, or MeasurementTimeout once the Job has been
//      Succeeded for longer than measurement_timeout
//   3. keys in sorted order; the first that fails decides: InvalidExpression (does not compile,
//      is not bool, or fails at run time, e.g. division by zero) or Violated (false)
//   4. all true -> Met
#include "k8s/rfc3339.hpp"

#include <map>
#include <string>

namespace nvcre::measure {

struct ThresholdVerdict {
  enum class Outcome { Pending, Met, Violated, MeasurementTimeout, UnknownKey, InvalidExpression };
  Outcome outcome = Outcome::Pending;
  std::string reason;   // api::job_reason constant; empty while Pending
  std::string message;  // the condition message (Pending: which keys are awaited)
};

// `thresholds`: key -> CEL expression (spec.thresholds; callers skip the check when it is empty,
// which would otherwise be Met). `measured`: key -> value, final data only. A measured key that
// no threshold names is ignored.
ThresholdVerdict judge_thresholds(const std::map<std::string, std::string>& thresholds,
                                  const std::map<std::string, double>& measured,
                                  k8s::Clock::duration succeeded_for,
                                  k8s::Clock::duration measurement_timeout);

// The outcome's name as written in golden files and logs: "Pending", "Met", ...
std::string_view outcome_name(ThresholdVerdict::Outcome outcome);

}  // namespace nvcre::measure
