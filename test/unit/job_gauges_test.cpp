// The series a Job's status projects (job/job_gauges.hpp) and the registry's counter-typed object
// series: a running Job shows its one-hot status; a hardware failure adds the failed-node gauge,
// the first-failure counter and one per-node counter per node the health rule failed.
#include "job/job_gauges.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/metrics.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::jsonkit::parse_yaml;

const char* kHardwareFailed = R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Job
metadata: {name: j, namespace: ns, labels: {nvcre.nvidia.com/workflow: wf}}
status:
  conditions:
  - {type: InProgress, status: "True", reason: WorkloadRunning}
  - {type: Succeeded, status: "False", reason: NotApplicable}
  - {type: HardwareFailed, status: "True", reason: HardwareFailureDetected}
  failedNodes:
  - {name: node-b, reason: HardwareFailureDetected, message: m}
  - {name: node-b, reason: WorkloadFailed, message: m}
  - {name: node-c, reason: HardwareFailureDetected, message: m}
)";

const std::map<std::string, std::string> kLabels{
    {"namespace", "ns"}, {"job", "j"}, {"workflow", "wf"}};

std::map<std::string, std::string> with(std::string key, std::string value) {
  auto labels = kLabels;
  labels[std::move(key)] = std::move(value);
  return labels;
}

TEST(JobGauges, ANewJobProjectsNothing) {
  EXPECT_TRUE(nvcre::job::job_gauges(parse_yaml("{kind: Job, metadata: {name: j}}")).empty());
}

TEST(JobGauges, AHardwareFailureProjectsItsGaugeAndCounters) {
  const std::vector<nvcre::k8s::GaugeSample> expected{
      {"nvcre_job_status", with("status", "in_progress"), 1},
      {"nvcre_job_status", with("status", "succeeded"), 0},
      {"nvcre_job_status", with("status", "failed"), 0},
      {"nvcre_job_failed_nodes", kLabels, 2},
      {"nvcre_hardware_failed_jobs_total", kLabels, 1},
      {"nvcre_hardware_failures_detected_total", with("node", "node-b"), 1},
      {"nvcre_hardware_failures_detected_total", with("node", "node-c"), 1},
  };
  EXPECT_EQ(nvcre::job::job_gauges(parse_yaml(kHardwareFailed)), expected);
}

TEST(JobGauges, CountersAreCountersAndGoWithTheJob) {
  nvcre::k8s::Metrics metrics;
  const auto samples = nvcre::job::job_gauges(parse_yaml(kHardwareFailed));
  metrics.replace_object_gauges("Job/ns/j", samples);
  metrics.replace_object_gauges("Job/ns/j", samples);  // a second pass counts nothing twice
  const std::string text = metrics.render();
  EXPECT_NE(text.find("# TYPE nvcre_hardware_failures_detected_total counter"), std::string::npos);
  EXPECT_NE(text.find("# TYPE nvcre_job_failed_nodes gauge"), std::string::npos);
  EXPECT_NE(text.find("nvcre_hardware_failures_detected_total{job=\"j\",namespace=\"ns\",node="
                      "\"node-c\",workflow=\"wf\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nvcre_hardware_failed_jobs_total{job=\"j\",namespace=\"ns\",workflow="
                      "\"wf\"} 1"),
            std::string::npos)
      << text;
  metrics.replace_object_gauges("Job/ns/j", {});
  EXPECT_EQ(metrics.render().find("job=\"j\""), std::string::npos);
}

}  // namespace
