// Golden suite `goodput-accounting` for measure/goodput.hpp. A case holds a LogProfile
// (profile.yaml, or profile.txt naming a shipped one under deploy/logprofiles/) and samples.yaml:
//   status: {...}                 optional starting status
//   samples:
//   - now: <RFC 3339>             the sample time (the terminal anchor with `end`)
//     workloadPresent: true       false: the workload is gone (a restart is in progress)
//     restartCount: 0             the Job's restartCount
//     end: succeeded | failed     optional: a terminal merge at `now`, then the Job's end
//     log: |                      the new window (kubelet-prefixed lines)
// Each sample runs as the controller runs it: an interruption check, then (workload present)
// the window's merge. expected.json lists, per sample, the status and the carried checkpoint
// save.
#include "api/codec.hpp"
#include "jsonkit/paths.hpp"
#include "jsonkit/yaml.hpp"
#include "measure/goodput.hpp"
#include "measure/log_events.hpp"
#include "measure/log_lines.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

namespace json = boost::json;
namespace measure = nvcre::measure;
namespace k8s = nvcre::k8s;
using nvcre::testing::GoldenCase;

std::string profile_manifest(const GoldenCase& golden_case) {
  if (golden_case.has_input("profile.yaml")) return golden_case.input("profile.yaml");
  std::string name = golden_case.input("profile.txt");
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  std::ifstream in(std::string(NVCRE_SOURCE_DIR) + "/deploy/logprofiles/" + name + ".yaml");
  std::ostringstream content;
  content << in.rdbuf();
  if (content.str().empty()) throw std::runtime_error("no shipped LogProfile " + name);
  return content.str();
}

k8s::Clock::time_point time_at(const json::value& sample, std::string_view key) {
  const std::string text = nvcre::jsonkit::string_at(sample, {key});
  auto parsed = k8s::parse_rfc3339(text);
  if (!parsed) throw std::runtime_error("samples.yaml: bad time '" + text + "'");
  return *parsed;
}

bool bool_at(const json::value& sample, std::string_view key, bool fallback) {
  const json::value* found = nvcre::jsonkit::value_at(sample, {key});
  return found != nullptr && found->is_bool() ? found->get_bool() : fallback;
}

json::value pending_json(const std::optional<measure::PendingCheckpointSave>& save) {
  if (!save) return nullptr;
  return json::object{{"step", save->step}, {"at", k8s::format_rfc3339_micro(save->at)}};
}

json::value run_case(const GoldenCase& golden_case) {
  const auto profile =
      measure::compile_profile(measure::read_log_profile(profile_manifest(golden_case)));
  const json::value input = nvcre::jsonkit::parse_yaml(golden_case.input("samples.yaml"));
  nvcre::api::GoodputMeasurementStatus status;
  if (const json::value* start = nvcre::jsonkit::value_at(input, {"status"}))
    status = nvcre::api::decode<nvcre::api::GoodputMeasurementStatus>(*start);
  std::optional<measure::PendingCheckpointSave> carried;
  json::array out;
  for (const auto& sample : input.at("samples").as_array()) {
    const auto now = time_at(sample, "now");
    const bool present = bool_at(sample, "workloadPresent", true);
    const json::value* restarts = nvcre::jsonkit::value_at(sample, {"restartCount"});
    const std::int64_t restart_count =
        restarts != nullptr ? restarts->to_number<std::int64_t>() : 0;
    const std::string end = nvcre::jsonkit::string_at(sample, {"end"});
    if (end.empty() && measure::interruption_detected(status, present, restart_count)) {
      const auto stop = k8s::parse_rfc3339(status.applicationStopTime);
      measure::record_interruption(status, measure::kInterruptionWorkloadRestarted,
                                   stop.value_or(now));
    }
    if (present) {
      const std::string log = nvcre::jsonkit::string_at(sample, {"log"});
      const auto split = measure::split_log_lines(log);
      const auto lines = split.all_lines();
      std::optional<k8s::Clock::time_point> last_log_time;
      for (const auto& line : lines) {
        if (line.timestamp) last_log_time = line.timestamp;
      }
      const auto events = measure::scan_events(profile, lines);
      auto update = measure::merge_goodput_window(
          status, {profile, events, last_log_time, now, carried, !end.empty()});
      status = std::move(update.status);
      carried = update.pending_save;
    }
    if (end == "failed") {
      auto stop = k8s::parse_rfc3339(status.applicationStopTime).value_or(now);
      measure::account_job_failure(status, std::min(stop, now));
    }
    out.push_back(json::object{{"status", nvcre::api::encode(status)},
                               {"pendingSave", pending_json(carried)}});
  }
  return out;
}

class GoodputAccounting : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoodputAccounting, Accounts) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    return nvcre::jsonkit::to_pretty_json(run_case(golden_case));
  });
}

NVCRE_GOLDEN_SUITE(GoodputAccounting, "goodput-accounting");

TEST(GoodputRatio, FollowsTheFormulaAndClampsToZero) {
  // (1000 - (50 + 100) - 200 - 30) / (1000 - 200)
  EXPECT_DOUBLE_EQ(measure::goodput_ratio(1000, 100, 200, 50, 30), 620.0 / 800.0);
  EXPECT_EQ(measure::goodput_ratio(100, 0, 100, 0, 0), 0);    // denominator 0
  EXPECT_EQ(measure::goodput_ratio(100, 90, 0, 20, 0), 0);    // numerator < 0
  EXPECT_EQ(measure::format_status_number(0.5), "0.500000");  // Go's %.6f / 'f', 6
  EXPECT_EQ(measure::parse_status_number("1.5abc"), 0);
}

}  // namespace
