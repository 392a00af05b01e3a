// Which keys the measurement-related watches enqueue: a measurement wakes the Job it names, a Job
// wakes the measurements of one kind that name it (and no others).
#include "jsonkit/yaml.hpp"
#include "k8s/object_cache.hpp"
#include "api/measurement.hpp"
#include "measurement/measurement_watches.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::jsonkit::parse_yaml;
using nvcre::k8s::ObjectRef;
using nvcre::measurement::measured_job_key;
using nvcre::measurement::measurements_of_job;

constexpr const char* kNvcre = "nvcre.nvidia.com/v1alpha1";

boost::json::value measurement(const std::string& kind, const std::string& ns,
                               const std::string& name, const std::string& job) {
  return parse_yaml("apiVersion: nvcre.nvidia.com/v1alpha1\nkind: " + kind +
                    "\nmetadata: {name: " + name + ", namespace: " + ns + "}\n" +
                    "spec: {jobRef: {name: '" + job + "'}}\n");
}

class MeasurementWatches : public ::testing::Test {
 protected:
  void SetUp() override {
    // The same objects in a plain cache and in one that indexes the field as the manager's does.
    for (auto* view : {&cache, &indexed}) {
      view->upsert(measurement("BandwidthMeasurement", "ns", "j1-bandwidth", "j1"));
      view->upsert(measurement("BandwidthMeasurement", "ns", "j2-bandwidth", "j2"));
      view->upsert(measurement("BandwidthMeasurement", "other", "j1-bandwidth", "j1"));
      view->upsert(measurement("GoodputMeasurement", "ns", "j1-goodput", "j1"));
      view->upsert(measurement("BandwidthMeasurement", "ns", "unbound", ""));
    }
  }
  nvcre::k8s::ObjectCache cache;
  nvcre::k8s::ObjectCache indexed{
      {},
      {},
      {{{kNvcre, "BandwidthMeasurement"}, {std::string(nvcre::api::kJobRefNamePointer)}},
       {{kNvcre, "GoodputMeasurement"}, {std::string(nvcre::api::kJobRefNamePointer)}}}};
};

TEST_F(MeasurementWatches, AMeasurementWakesTheJobItNames) {
  EXPECT_EQ(measured_job_key({kNvcre, "BandwidthMeasurement", "ns", "j2-bandwidth"}, cache),
            "ns/j2");
  EXPECT_EQ(measured_job_key({kNvcre, "GoodputMeasurement", "ns", "j1-goodput"}, cache), "ns/j1");
}

TEST_F(MeasurementWatches, NothingIsWokenForAnUnboundGoneOrForeignObject) {
  EXPECT_EQ(measured_job_key({kNvcre, "BandwidthMeasurement", "ns", "unbound"}, cache), "");
  EXPECT_EQ(measured_job_key({kNvcre, "BandwidthMeasurement", "ns", "deleted"}, cache), "");
  EXPECT_EQ(measured_job_key({kNvcre, "Workflow", "ns", "j1-bandwidth"}, cache), "");
  EXPECT_EQ(measured_job_key({"v1", "BandwidthMeasurement", "ns", "j1-bandwidth"}, cache), "");
}

TEST_F(MeasurementWatches, AJobWakesOnlyItsMeasurementsOfTheAskedKindInItsNamespace) {
  const ObjectRef job{kNvcre, "Job", "ns", "j1"};
  for (const auto* view : {&cache, &indexed}) {
    EXPECT_EQ(measurements_of_job(job, *view, "BandwidthMeasurement"),
              std::vector<std::string>{"ns/j1-bandwidth"});
    EXPECT_EQ(measurements_of_job(job, *view, "GoodputMeasurement"),
              std::vector<std::string>{"ns/j1-goodput"});
    EXPECT_TRUE(
        measurements_of_job({kNvcre, "Job", "ns", "j3"}, *view, "BandwidthMeasurement").empty());
  }
}

TEST_F(MeasurementWatches, TheIndexFollowsAMeasurementThatNamesAnotherJob) {
  indexed.upsert(measurement("BandwidthMeasurement", "ns", "j1-bandwidth", "j2"));
  EXPECT_TRUE(
      measurements_of_job({kNvcre, "Job", "ns", "j1"}, indexed, "BandwidthMeasurement").empty());
  EXPECT_EQ(measurements_of_job({kNvcre, "Job", "ns", "j2"}, indexed, "BandwidthMeasurement"),
            (std::vector<std::string>{"ns/j1-bandwidth", "ns/j2-bandwidth"}));
}

TEST_F(MeasurementWatches, OnlyAJobChangeWakesMeasurements) {
  EXPECT_TRUE(
      measurements_of_job({"batch/v1", "Job", "ns", "j1"}, cache, "BandwidthMeasurement").empty());
  EXPECT_TRUE(
      measurements_of_job({kNvcre, "TrainJob", "ns", "j1"}, cache, "BandwidthMeasurement").empty());
}

}  // namespace
