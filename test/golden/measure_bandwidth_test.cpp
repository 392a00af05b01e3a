// Golden suites for measure/bandwidth.hpp and measure/log_profile.hpp:
//   measure-bandwidth    input.log (a launcher log, kubelet timestamps or none), profile.yaml
//                        (default: the shipped nccl-bandwidth), existing.yaml (optional status
//                        results to merge into) -> the rows, transports, last timestamp, exact
//                        averages, running averages and peaks; `error` for a profile that does
//                        not compile.
//   measure-log-profile  profile.yaml or profile.txt (a shipped profile's name) + input.log ->
//                        the `nvcrectl logprofile test -o json` report; `error` for a bad profile.
#include "api/codec.hpp"
#include "cli/logprofile_command.hpp"
#include "jsonkit/yaml.hpp"
#include "measure/bandwidth.hpp"
#include "measure/log_profile.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

namespace json = boost::json;
namespace measure = nvcre::measure;
using nvcre::testing::GoldenCase;

std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(NVCRE_SOURCE_DIR) + "/" + relative);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

json::value row_json(const measure::BandwidthRow& row) {
  return json::object{{"sizeBytes", row.sizeBytes},
                      {"algBW", row.algBW},
                      {"busBW", row.busBW},
                      {"timestamp", row.timestamp ? nvcre::k8s::format_rfc3339_nano(*row.timestamp)
                                                  : std::string()}};
}

json::array results_json(const std::vector<nvcre::api::BandwidthResult>& results) {
  json::array out;
  for (const auto& result : results) out.push_back(nvcre::api::encode(result));
  return out;
}

json::value optional_number(std::optional<double> value) {
  return value ? json::value(*value) : json::value(nullptr);
}

class MeasureBandwidth : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MeasureBandwidth, ScansAndAverages) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const std::string manifest = golden_case.has_input("profile.yaml")
                                     ? golden_case.input("profile.yaml")
                                     : read_source_file("deploy/logprofiles/nccl-bandwidth.yaml");
    const auto profile = measure::compile_profile(measure::read_log_profile(manifest));
    const auto scan = measure::scan_bandwidth(profile, golden_case.input("input.log"));
    json::object out;
    out["rowCount"] = static_cast<std::int64_t>(scan.rows.size());
    json::array rows;
    for (const auto& row : scan.rows) rows.push_back(row_json(row));
    out["rows"] = rows;
    json::array transports;
    for (const auto& name : scan.transports) transports.emplace_back(name);
    out["transport"] = transports;
    out["lastTimestamp"] =
        scan.last_timestamp ? nvcre::k8s::format_rfc3339_nano(*scan.last_timestamp) : "";
    const auto averages = measure::average_rows(scan.rows);
    out["averages"] = results_json(averages);
    if (golden_case.has_input("existing.yaml")) {
      const auto existing = nvcre::api::decode<std::vector<nvcre::api::BandwidthResult>>(
          nvcre::jsonkit::parse_yaml(golden_case.input("existing.yaml")));
      const auto merged = measure::merge_running_averages(existing, scan.rows);
      out["merged"] = results_json(merged);
      out["mergedTransport"] =
          json::value_from(measure::merge_transports({"Socket", " IB "}, scan.transports));
    }
    out["peakBusBW"] = optional_number(measure::peak_bus_bandwidth(averages));
    out["peakAlgBW"] = optional_number(measure::peak_alg_bandwidth(averages));
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(MeasureBandwidth, "measure-bandwidth");

class MeasureLogProfile : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(MeasureLogProfile, Reports) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto profile =
        golden_case.has_input("profile.txt")
            ? nvcre::cli::load_log_profile(trimmed(golden_case.input("profile.txt")))
            : measure::read_log_profile(golden_case.input("profile.yaml"));
    const auto report = nvcre::cli::logprofile_test_report(profile, golden_case.input("input.log"));
    return nvcre::jsonkit::to_pretty_json(report);
  });
}

NVCRE_GOLDEN_SUITE(MeasureLogProfile, "measure-log-profile");

}  // namespace
