// Golden suite `threshold-check` for nvcre::measure::judge_thresholds.
//   input.json  {thresholds: {key: expression}, measured: {key: number}, succeededFor: "<Go
//               duration>", measurementTimeout: "<Go duration>"}
// Output: the verdict {outcome, reason, message}.
#include "jsonkit/yaml.hpp"
#include "k8s/duration.hpp"
#include "measure/threshold_check.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <stdexcept>

namespace {

namespace json = boost::json;
using nvcre::testing::GoldenCase;

std::chrono::nanoseconds duration_at(const json::object& input, const char* field) {
  const auto parsed = nvcre::k8s::parse_go_duration(json::value_to<std::string>(input.at(field)));
  if (!parsed) throw std::invalid_argument(std::string("input.json: bad Go duration in ") + field);
  return *parsed;
}

class MeasureThresholdCheck : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MeasureThresholdCheck, Judges) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::object input =
        nvcre::jsonkit::parse_yaml(golden_case.input("input.json")).as_object();
    std::map<std::string, std::string> thresholds;
    for (const auto& [key, expression] : input.at("thresholds").as_object())
      thresholds[std::string(key)] = json::value_to<std::string>(expression);
    std::map<std::string, double> measured;
    for (const auto& [key, value] : input.at("measured").as_object())
      measured[std::string(key)] = json::value_to<double>(value);
    const auto verdict =
        nvcre::measure::judge_thresholds(thresholds, measured, duration_at(input, "succeededFor"),
                                         duration_at(input, "measurementTimeout"));
    return nvcre::jsonkit::to_pretty_json(
        json::object{{"outcome", nvcre::measure::outcome_name(verdict.outcome)},
                     {"reason", verdict.reason},
                     {"message", verdict.message}});
  });
}

NVCRE_GOLDEN_SUITE(MeasureThresholdCheck, "threshold-check");

}  // namespace
