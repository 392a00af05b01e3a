// Golden suites for measure/go_time.hpp and measure/worker_pods.hpp:
//   measure-go-time      input.yaml {cases: [{layout, value, defaultYear?}]} -> each time in
//                        RFC 3339 (UTC, nanoseconds) or Go's parse error; `layouts` -> what
//                        check_go_layout says of each layout.
//   measure-worker-pods  input.yaml {trainJob, replicatedJob, pods: [Pod]} -> the worker pods
//                        by completion index and the replicated-job pods best first.
#include "jsonkit/yaml.hpp"
#include "measure/go_time.hpp"
#include "measure/worker_pods.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

namespace json = boost::json;
namespace measure = nvcre::measure;
using nvcre::testing::GoldenCase;

class MeasureGoTime : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MeasureGoTime, Parses) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto input = nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    json::array results;
    if (const auto* cases = input.if_contains("cases")) {
      for (const auto& item : cases->as_array()) {
        const auto& entry = item.as_object();
        std::optional<int> default_year;
        if (const auto* year = entry.if_contains("defaultYear"))
          default_year = static_cast<int>(year->to_number<std::int64_t>());
        const auto result = measure::parse_go_time(entry.at("layout").as_string(),
                                                   entry.at("value").as_string(), default_year);
        json::object out{{"layout", entry.at("layout")}, {"value", entry.at("value")}};
        if (result.time) {
          out["time"] = nvcre::k8s::format_rfc3339_nano(*result.time);
        } else {
          out["error"] = result.error;
        }
        results.push_back(std::move(out));
      }
    }
    json::array layouts;
    if (const auto* list = input.if_contains("layouts")) {
      for (const auto& layout : list->as_array()) {
        const auto problem = measure::check_go_layout(layout.as_string());
        layouts.push_back(json::object{{"layout", layout}, {"problem", problem}});
      }
    }
    return nvcre::jsonkit::to_pretty_json(json::object{{"cases", results}, {"layouts", layouts}});
  });
}

NVCRE_GOLDEN_SUITE(MeasureGoTime, "measure-go-time");

json::array names(const std::vector<const json::object*>& pods) {
  json::array out;
  for (const auto* pod : pods) out.push_back(pod->at("metadata").at("name"));
  return out;
}

class MeasureWorkerPods : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MeasureWorkerPods, Chooses) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto input = nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    const auto& list = input.at("pods").as_array();
    std::vector<const json::value*> pods;
    for (const auto& pod : list) pods.push_back(&pod);
    const std::string trainjob(input.at("trainJob").as_string());
    const std::string replicated(input.at("replicatedJob").as_string());
    const auto* chosen = measure::replicated_job_pod(pods, trainjob, replicated);
    json::object out{
        {"workers", names(measure::trainjob_worker_pods(pods, trainjob))},
        {"replicatedJobPods", names(measure::replicated_job_pods(pods, trainjob, replicated))},
        {"replicatedJobPod", chosen ? chosen->at("metadata").at("name") : json::value(nullptr)}};
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(MeasureWorkerPods, "measure-worker-pods");

}  // namespace
