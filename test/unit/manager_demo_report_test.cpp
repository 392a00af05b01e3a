// The demo's final report: each Job with its verdict, its group's nodes and the peak bus
// bandwidth of its BandwidthMeasurement (marked when the figure is not final).
#include "jsonkit/yaml.hpp"
#include "manager/demo_report.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::jsonkit::parse_yaml;

const char* kCertification = R"(
metadata: {name: demo, namespace: ns}
status:
  conditions: [{type: Succeeded, status: "True", reason: AllCategoriesSucceeded, message: done}]
  categoryStatuses:
  - {domain: communication, variant: nccl-all-reduce, status: Succeeded, workflowRef: {name: wf}}
)";

json::value job(const std::string& name, const std::string& extra_conditions) {
  return parse_yaml(
      "metadata: {name: " + name +
      ", labels: {nvcre.nvidia.com/workflow: wf}, annotations: {nvcre.nvidia.com/group-nodes: "
      "\"n1,n2\"}}\n"
      "status:\n  conditions:\n  - {type: Succeeded, status: \"True\", reason: WorkloadCompleted, "
      "message: ok}\n" +
      extra_conditions);
}

json::value measurement(const std::string& job, const std::string& reason,
                        const std::string& results) {
  return parse_yaml("spec: {jobRef: {name: " + job + "}}\nstatus:\n  results: " + results +
                    "\n  conditions: [{type: Complete, status: \"True\", reason: " + reason +
                    "}]\n");
}

TEST(DemoReport, ShowsThePeakBusBandwidthOfEachJob) {
  const auto report = nvcre::manager::final_report(
      parse_yaml(kCertification), {}, {job("wf-a", "")},
      {measurement("wf-a", "JobSucceeded",
                   "[{sizeBytes: 1, algBW: '1.00', busBW: '360.10', samples: 1}, {sizeBytes: 2, "
                   "algBW: '2.00', busBW: '371.90', samples: 1}]")});
  EXPECT_NE(report.find("Job wf-a [n1,n2]: Succeeded, peak bus bandwidth 371.90 GB/s\n"),
            std::string::npos)
      << report;
}

TEST(DemoReport, MarksAFigureThatIsNotFinalAndTheValidationVerdict) {
  const auto report = nvcre::manager::final_report(
      parse_yaml(kCertification), {},
      {job("wf-a",
           "  - {type: ValidationFailed, status: \"True\", reason: ThresholdViolated, message: "
           "\"Threshold violated\"}\n")},
      {measurement("wf-a", "LogsUnavailable",
                   "[{sizeBytes: 1, algBW: '1', busBW: '50.00', samples: 1}]")});
  EXPECT_NE(report.find("peak bus bandwidth 50.00 GB/s (LogsUnavailable)"), std::string::npos)
      << report;
  EXPECT_NE(report.find("ValidationFailed (ThresholdViolated): Threshold violated"),
            std::string::npos)
      << report;
}

TEST(DemoReport, AJobWithoutMeasurementHasNoBandwidth) {
  const auto report =
      nvcre::manager::final_report(parse_yaml(kCertification), {}, {job("wf-a", "")}, {});
  EXPECT_NE(report.find("Job wf-a [n1,n2]: Succeeded\n"), std::string::npos) << report;
}

}  // namespace
