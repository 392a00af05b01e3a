// The demo report of a diagnose run: a line per round, the blamed node with its reason and the
// stage that confirmed it, the passed nodes; the round Jobs' own failed nodes are not repeated.
#include "jsonkit/yaml.hpp"
#include "manager/demo_report.hpp"
#include "workflow/node_results.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::jsonkit::parse_yaml;

const char* kCertification = R"(
metadata: {name: demo, namespace: ns}
status:
  conditions: [{type: Failed, status: "True", reason: WorkflowFailed, message: failed}]
  categoryStatuses:
  - {domain: communication, variant: nccl-all-reduce, status: Failed, workflowRef: {name: wf}}
)";

const char* kWorkflow = R"(
metadata: {name: wf}
spec: {orchestration: {diagnose: {minGroupSize: 2}}}
status:
  conditions:
  - {type: Failed, status: "True", reason: IterationsFailed, message: "Diagnosis complete: 1 faulty nodes confirmed"}
  failedNodesRef: {kind: ConfigMap, name: failed-nodes-1234abcd}
  succeededNodesRef: {kind: ConfigMap, name: succeeded-nodes-1234abcd}
  orchestration: {diagnose: {stage: complete, round: 3}}
)";

json::value job(const std::string& group, const std::string& nodes, const std::string& verdict,
                const std::string& created) {
  return parse_yaml("metadata: {name: wf-" + group + ", creationTimestamp: '" + created +
                    "', labels: {nvcre.nvidia.com/workflow: wf, nvcre.nvidia.com/group: " + group +
                    "}, annotations: {nvcre.nvidia.com/group-nodes: '" + nodes +
                    "'}}\nstatus:\n  conditions: [{type: " + verdict +
                    ", status: 'True', reason: R, message: m}]\n  failedNodes: [{name: " +
                    nodes.substr(0, 2) + ", reason: WorkloadFailed, message: group failed}]\n");
}

json::value configmap(const std::string& name, const std::string& key, const std::string& data) {
  namespace wf = nvcre::workflow;
  return json::object{{"metadata", {{"name", name}}},
                      {"binaryData", {{key, wf::base64_encode(wf::gzip(data))}}}};
}

TEST(DemoDiagnoseReport, NamesTheConfirmedNodeAloneWithItsRoundsAndThePassedNodes) {
  const std::vector<json::value> jobs{
      job("confirm-1", "n2,n4", "Failed", "2026-01-01T00:00:03Z"),
      job("screen-0", "n1,n2,n3,n4", "Failed", "2026-01-01T00:00:01Z"),
      job("bisect-1-0b", "n3,n4", "Succeeded", "2026-01-01T00:00:02Z"),
      job("bisect-1-0a", "n1,n2", "Failed", "2026-01-01T00:00:02Z"),
      job("confirm-0", "n1,n3", "Succeeded", "2026-01-01T00:00:03Z")};
  const std::vector<json::value> configmaps{
      configmap(
          "failed-nodes-1234abcd", "failed-nodes.json.gz",
          R"([{"name":"n2","reason":"WorkloadFailed","message":"Diagnosis complete: 1 faulty nodes confirmed"}])"),
      configmap("succeeded-nodes-1234abcd", "succeeded-nodes.csv.gz", "n1,n3,n4")};
  const std::string report = nvcre::manager::final_report(
      parse_yaml(kCertification), {parse_yaml(kWorkflow)}, jobs, {}, configmaps);
  const std::string expected =
      "  communication/nccl-all-reduce: Failed - Failed (IterationsFailed): Diagnosis complete: 1 "
      "faulty nodes confirmed\n"
      "    diagnose: 3 rounds, 5 Jobs\n"
      "      round 1 intra-screening: screen-0 [n1,n2,n3,n4] Failed\n"
      "      round 2 bisection: bisect-1-0a [n1,n2] Failed; bisect-1-0b [n3,n4] Succeeded\n"
      "      round 3 confirmation: confirm-0 [n1,n3] Succeeded; confirm-1 [n2,n4] Failed\n"
      "    faulty node n2 (WorkloadFailed): Diagnosis complete: 1 faulty nodes confirmed; "
      "confirmed by confirmation (confirm-1)\n"
      "      confirm-1: m\n"
      "    passed (3): n1, n3, n4\n";
  EXPECT_NE(report.find(expected), std::string::npos) << report;
  EXPECT_EQ(report.find("group failed"), std::string::npos) << report;
}

TEST(DemoDiagnoseReport, EachGroupShowsItsMeasuredBusBandwidth) {
  const std::vector<json::value> jobs{
      job("screen-0", "n1,n2", "Failed", "2026-01-01T00:00:01Z"),
      job("bisect-1-0a", "n1", "Succeeded", "2026-01-01T00:00:02Z")};
  const std::vector<json::value> measurements{parse_yaml(R"(
spec: {jobRef: {name: wf-bisect-1-0a}}
status:
  results: [{sizeBytes: 1024, busBW: "12.50"}, {sizeBytes: 2048, busBW: "371.78"}]
  conditions: [{type: Complete, status: "True", reason: JobSucceeded}]
)")};
  const std::string report = nvcre::manager::final_report(
      parse_yaml(kCertification), {parse_yaml(kWorkflow)}, jobs, measurements, {});
  EXPECT_NE(report.find("round 2 bisection: bisect-1-0a [n1] Succeeded (peak bus bandwidth "
                        "371.78 GB/s)\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("screen-0 [n1,n2] Failed\n"), std::string::npos) << report;
}

TEST(DemoDiagnoseReport, RepeatedCrossBoundaryProbesAreSeparateRounds) {
  const std::vector<json::value> jobs{
      job("cross-0-mix0", "n1,n2,n5,n6", "Failed", "2026-01-01T00:00:05Z"),
      job("cross-0-mix1", "n3,n4,n7,n8", "Succeeded", "2026-01-01T00:00:05Z"),
      job("cross-0-mix0", "n1,n5", "Failed", "2026-01-01T00:00:07Z"),
      job("cross-0-mix1", "n2,n6", "Succeeded", "2026-01-01T00:00:07Z")};
  const std::string report = nvcre::manager::final_report(parse_yaml(kCertification),
                                                          {parse_yaml(kWorkflow)}, jobs, {}, {});
  EXPECT_NE(report.find("      round 1 cross-boundary: cross-0-mix0 [n1,n2,n5,n6] Failed; "
                        "cross-0-mix1 [n3,n4,n7,n8] Succeeded\n"
                        "      round 2 cross-boundary: cross-0-mix0 [n1,n5] Failed; cross-0-mix1 "
                        "[n2,n6] Succeeded\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("    no faulty node\n"), std::string::npos) << report;
}

}  // namespace
