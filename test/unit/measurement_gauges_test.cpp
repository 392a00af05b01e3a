// The gauges a measurement projects, and the registry keeping exactly the projected series of each
// object: a running BandwidthMeasurement shows per-size bandwidth, a Complete one none; a deleted
// object's series are removed.
#include "jsonkit/yaml.hpp"
#include "k8s/metrics.hpp"
#include "measurement/measurement_gauges.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using nvcre::jsonkit::parse_yaml;

const char* kRunning = R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: BandwidthMeasurement
metadata: {name: j-bandwidth, namespace: ns, labels: {nvcre.nvidia.com/workflow: wf}}
spec: {jobRef: {name: j}, logProfileRef: nccl-bandwidth, testType: all_reduce}
status:
  results:
  - {sizeBytes: 1048576, algBW: "16.93", busBW: "31.75", samples: 2}
  - {sizeBytes: 2097152, algBW: "30.10", busBW: "56.44", samples: 2}
  conditions: [{type: Measuring, status: "True", reason: JobRunning}]
)";

TEST(MeasurementGauges, ARunningBandwidthMeasurementShowsEachSize) {
  const auto gauges = nvcre::measurement::measurement_gauges(parse_yaml(kRunning));
  // Each figure under NVCRE's current _gbs name and its deprecated _gbps alias.
  ASSERT_EQ(gauges.size(), 8U);
  EXPECT_EQ(gauges[0].name, "nvcre_nccl_busbw_gbs");
  EXPECT_DOUBLE_EQ(gauges[0].value, 31.75);
  EXPECT_EQ(gauges[1].name, "nvcre_nccl_busbw_gbps");
  EXPECT_DOUBLE_EQ(gauges[1].value, 31.75);
  const std::map<std::string, std::string> labels{
      {"namespace", "ns"}, {"measurement", "j-bandwidth"}, {"job", "j"},
      {"workflow", "wf"},  {"nccl_test", "all_reduce"},    {"message_size_bytes", "1048576"}};
  EXPECT_EQ(gauges[0].labels, labels);
  EXPECT_EQ(gauges[1].labels, labels);
  EXPECT_EQ(gauges[2].name, "nvcre_nccl_algbw_gbs");
  EXPECT_DOUBLE_EQ(gauges[2].value, 16.93);
  EXPECT_EQ(gauges[3].name, "nvcre_nccl_algbw_gbps");
  EXPECT_EQ(gauges[7].labels.at("message_size_bytes"), "2097152");
}

TEST(MeasurementGauges, ACompleteBandwidthMeasurementShowsNone) {
  auto complete = parse_yaml(kRunning);
  complete.at("status")
      .at("conditions")
      .as_array()
      .push_back(parse_yaml("{type: Complete, status: 'True', reason: JobSucceeded}"));
  EXPECT_TRUE(nvcre::measurement::measurement_gauges(complete).empty());
}

TEST(MeasurementGauges, GoodputKeepsItsRatioAfterCompletion) {
  const auto complete = parse_yaml(R"(
kind: GoodputMeasurement
metadata: {name: j-goodput, namespace: ns}
spec: {jobRef: {name: j}, logProfileRef: megatron-training}
status:
  result: "0.9120"
  avgTFLOPSPerGPU: "410.20"
  avgStepTimeSec: "1.8432"
  conditions: [{type: Complete, status: "True", reason: JobSucceeded}]
)");
  const auto gauges = nvcre::measurement::measurement_gauges(complete);
  ASSERT_EQ(gauges.size(), 1U);
  EXPECT_EQ(gauges[0].name, "nvcre_goodput_ratio");
  EXPECT_DOUBLE_EQ(gauges[0].value, 0.912);
}

// The reference records its ten goodput gauges together with each running sample, 0 for a figure
// not measured yet (its integration golden `goodput-measurement` pins warmup time 0 and every
// name).
TEST(MeasurementGauges, ASampledRunningGoodputShowsAllTenFigures) {
  const auto running = parse_yaml(R"(
kind: GoodputMeasurement
metadata: {name: j-goodput, namespace: ns}
spec: {jobRef: {name: j}, logProfileRef: megatron-training}
status:
  lostWorkTimeSec: "0.000000"
  rescheduleTimeSec: "0.000000"
  resumeTimeSec: "4.250000"
  checkpointSaveTimeSec: "3.100000"
  avgStepTimeSec: "1.040000"
  nonWarmupTimeSec: "3.120000"
  avgTFLOPSPerGPU: "612.40"
  conditions: [{type: Measuring, status: "True", reason: JobRunning}]
)");
  const auto gauges = nvcre::measurement::measurement_gauges(running);
  std::map<std::string, double> by_name;
  for (const auto& g : gauges) by_name[g.name] = g.value;
  const std::map<std::string, double> expected{{"nvcre_goodput_ratio", 0},
                                               {"nvcre_goodput_avg_tflops_per_gpu", 612.4},
                                               {"nvcre_goodput_avg_step_time_seconds", 1.04},
                                               {"nvcre_goodput_reschedule_time_seconds", 0},
                                               {"nvcre_goodput_resume_time_seconds", 4.25},
                                               {"nvcre_goodput_checkpoint_save_time_seconds", 3.1},
                                               {"nvcre_goodput_lost_work_time_seconds", 0},
                                               {"nvcre_goodput_training_time_seconds", 0},
                                               {"nvcre_goodput_warmup_time_seconds", 0},
                                               {"nvcre_goodput_non_warmup_time_seconds", 3.12}};
  EXPECT_EQ(by_name, expected);
  EXPECT_EQ(gauges.size(), 10U);
  // Every family is known to the registry.
  nvcre::k8s::Metrics metrics;
  metrics.replace_object_gauges("GoodputMeasurement/ns/j-goodput", gauges);
  EXPECT_NE(metrics.render().find("nvcre_goodput_non_warmup_time_seconds{"), std::string::npos);
}

TEST(MeasurementGauges, GoodputBeforeItsFirstSampleShowsOnlyWhatItHolds) {
  const auto fresh = parse_yaml(R"(
kind: GoodputMeasurement
metadata: {name: j-goodput, namespace: ns}
spec: {jobRef: {name: j}, logProfileRef: megatron-training}
status: {resumeTimeSec: "1.500000"}
)");
  const auto gauges = nvcre::measurement::measurement_gauges(fresh);
  ASSERT_EQ(gauges.size(), 1U);
  EXPECT_EQ(gauges[0].name, "nvcre_goodput_resume_time_seconds");
}

TEST(ObjectGauges, SeriesAnObjectNoLongerProjectsAreRemoved) {
  nvcre::k8s::Metrics metrics;
  const auto running = nvcre::measurement::measurement_gauges(parse_yaml(kRunning));
  metrics.replace_object_gauges("BandwidthMeasurement/ns/j-bandwidth", running);
  EXPECT_NE(metrics.render().find("message_size_bytes=\"2097152\""), std::string::npos);
  metrics.replace_object_gauges("BandwidthMeasurement/ns/j-bandwidth", {running[0], running[1]});
  EXPECT_EQ(metrics.render().find("message_size_bytes=\"2097152\""), std::string::npos);
  EXPECT_NE(metrics.render().find("message_size_bytes=\"1048576\""), std::string::npos);
  metrics.replace_object_gauges("BandwidthMeasurement/ns/j-bandwidth", {});
  EXPECT_EQ(metrics.render().find("j-bandwidth"), std::string::npos);
}

TEST(ObjectGauges, AnUnknownFamilyIsRefused) {
  nvcre::k8s::Metrics metrics;
  EXPECT_THROW(metrics.replace_object_gauges("x", {{"nvcre_made_up", {}, 1}}),
               std::invalid_argument);
}

}  // namespace
