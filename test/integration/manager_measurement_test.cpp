// Measured verdicts end to end: the real manager against an in-process kube-sim whose Trainer
// writes nccl-tests output (H100 groups measure about 372 GB/s bus bandwidth), a Certification
// with a busBandwidthGBps threshold on communication/nccl-all-reduce. Met, it succeeds with the
// measured peak on the BandwidthMeasurement; violated, or with a slow node in a group, the Job
// carries ValidationFailed / ThresholdViolated with the value and the expression and the
// Certification fails; a key nothing measures ends as MeasurementTimeout instead of waiting for
// ever.
#include "test/support/embedded_manager.hpp"
#include "test/support/certification_object.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kBandwidthMeasurements;
using nvcre::testing::kCertifications;
using nvcre::testing::kJobs;
using nvcre::testing::Verdict;
using nvcre::testing::verdict_of;

json::value certification(const std::string& name, json::object thresholds,
                          const std::string& measurement_timeout = "") {
  json::object options{{"nodesPerJob", 4}, {"thresholds", std::move(thresholds)}};
  if (!measurement_timeout.empty()) options["measurementTimeout"] = measurement_timeout;
  return nvcre::testing::one_category_certification(name, std::move(options));
}

// A training/nemotron5-8b Certification of 50 steps with these options (besides nodesPerJob 4).
json::value training_certification(const std::string& name, json::object options) {
  json::value cert = certification(name, {});
  auto& category = cert.at("spec").at("categories").as_array()[0].as_object();
  category["domain"] = "training";
  category["variant"] = "nemotron5-8b";
  auto& merged = category.at("options").as_object();
  merged.erase("thresholds");
  merged["maxSteps"] = 50;
  for (auto& [key, value] : options) merged[key] = value;
  return cert;
}

using nvcre::testing::condition;
using nvcre::testing::text;

class ManagerMeasurement : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void start(std::vector<std::string> slow_nodes = {}) {
    manager::EmbeddedClusterOptions options;
    options.slow_nodes = std::move(slow_nodes);
    EmbeddedManagerTest::start(std::move(options));
  }
};

TEST_F(ManagerMeasurement, ThresholdMetSucceedsWithTheMeasuredPeak) {
  start();
  client_->create(kCertifications, "it",
                  certification("met", {{"busBandwidthGBps", "value >= 300"}}));
  const Verdict v = wait_for_verdict("met");
  EXPECT_EQ(v.type, "Succeeded") << v.reason << ": " << v.message;
  const auto measurements = items(kBandwidthMeasurements);
  ASSERT_FALSE(measurements.empty());
  for (const auto& m : measurements) {
    EXPECT_EQ(text(condition(m, "Complete"), "reason"), "JobSucceeded") << json::serialize(m);
    ASSERT_FALSE(m.at("status").at("results").as_array().empty()) << json::serialize(m);
  }
  for (const auto& job : items(kJobs)) {
    const auto* validation = condition(job, "ValidationFailed");
    ASSERT_NE(validation, nullptr) << json::serialize(job);
    EXPECT_EQ(text(validation, "status"), "False");
    EXPECT_EQ(text(validation, "reason"), "ThresholdsMet");
  }
}

TEST_F(ManagerMeasurement, ThresholdViolatedFailsWithTheValueAndTheExpression) {
  start();
  client_->create(kCertifications, "it",
                  certification("violated", {{"busBandwidthGBps", "value >= 850"}}));
  const Verdict v = wait_for_verdict("violated");
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  const json::value cert = client_->get(kCertifications, "it", "violated");
  EXPECT_EQ(text(condition(cert, "ValidationFailed"), "status"), "True") << json::serialize(cert);
  bool violated = false;
  for (const auto& job : items(kJobs)) {
    const auto* validation = condition(job, "ValidationFailed");
    if (validation == nullptr || text(validation, "reason") != "ThresholdViolated") continue;
    violated = true;
    const std::string message = text(validation, "message");
    EXPECT_TRUE(message.starts_with("Threshold \"busBandwidthGBps\" violated: measured 3"))
        << message;
    EXPECT_TRUE(message.ends_with(", expression: value >= 850")) << message;
  }
  EXPECT_TRUE(violated);
}

TEST_F(ManagerMeasurement, ASlowNodeFailsItsGroupOnly) {
  start({"gpu-node-02=120"});
  client_->create(kCertifications, "it",
                  certification("slow", {{"busBandwidthGBps", "value >= 300"}}));
  const Verdict v = wait_for_verdict("slow");
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  int violated = 0;
  int met = 0;
  for (const auto& job : items(kJobs)) {
    const auto* validation = condition(job, "ValidationFailed");
    ASSERT_NE(validation, nullptr) << json::serialize(job);
    const std::string reason = text(validation, "reason");
    const std::string nodes = std::string(
        job.at("metadata").at("annotations").at("nvcre.nvidia.com/group-nodes").as_string());
    if (reason == "ThresholdViolated") {
      ++violated;
      EXPECT_NE(nodes.find("gpu-node-02"), std::string::npos) << nodes;
      // The slow node caps its group at 120 GB/s.
      const std::string message = text(validation, "message");
      const auto at = message.find("measured ");
      ASSERT_NE(at, std::string::npos) << message;
      const double measured = std::stod(message.substr(at + 9));
      EXPECT_GT(measured, 100.0) << message;
      EXPECT_LE(measured, 120.0) << message;
    } else {
      ++met;
      EXPECT_EQ(reason, "ThresholdsMet");
      EXPECT_EQ(nodes.find("gpu-node-02"), std::string::npos) << nodes;
    }
  }
  EXPECT_EQ(violated, 1);
  EXPECT_GE(met, 1);
}

TEST_F(ManagerMeasurement, AKeyNothingMeasuresTimesOut) {
  start();
  client_->create(kCertifications, "it",
                  certification("unmeasured", {{"goodputRatio", "value >= 0.5"}}, "2s"));
  const Verdict v = wait_for_verdict("unmeasured");
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  for (const auto& job : items(kJobs)) {
    const auto* validation = condition(job, "ValidationFailed");
    ASSERT_NE(validation, nullptr) << json::serialize(job);
    EXPECT_EQ(text(validation, "reason"), "MeasurementTimeout");
    EXPECT_EQ(text(validation, "message"),
              "Measurement data not available within 2s for keys: [goodputRatio]");
  }
}

}  // namespace
}  // namespace nvcre::actors

namespace nvcre::actors {
namespace {

json::value workload_run(const std::string& name, const std::string& threshold) {
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "WorkloadRun"},
      {"metadata", {{"name", name}, {"namespace", "it"}}},
      {"spec",
       {{"image", "nvcr.io/nvidia/pytorch:26.01-py3"},
        {"numNodes", 4},
        {"framework",
         {{"mpi",
           {{"binary", "/usr/local/bin/all_reduce_perf_mpi"},
            {"mpirunPath", "/usr/local/mpi/bin/mpirun"},
            {"args", json::array{"-b", "1G", "-e", "8G", "-f", "2"}}}}}},
        {"bandwidthMeasurement", {{"logProfileRef", "nccl-bandwidth"}, {"testType", "all_reduce"}}},
        {"thresholds", {{"busBandwidthGBps", threshold}}}}}};
}

TEST_F(ManagerMeasurement, AWorkloadRunMirrorsTheThresholdVerdict) {
  start();
  client_->create(nvcre::testing::kWorkloadRuns, "it", workload_run("met", "value >= 300"));
  client_->create(nvcre::testing::kWorkloadRuns, "it", workload_run("missed", "value >= 850"));
  const json::value met = wait_for_verdict_object(nvcre::testing::kWorkloadRuns, "met");
  ASSERT_FALSE(met.is_null());
  EXPECT_EQ(nvcre::testing::verdict_of(met).type, "Succeeded") << json::serialize(met);
  const json::value missed = wait_for_verdict_object(nvcre::testing::kWorkloadRuns, "missed");
  ASSERT_FALSE(missed.is_null());
  const Verdict v = nvcre::testing::verdict_of(missed);
  EXPECT_EQ(v.type, "Failed");
  EXPECT_EQ(v.reason, "WorkflowValidationFailed") << json::serialize(missed);
  EXPECT_EQ(text(condition(missed, "ValidationFailed"), "reason"), "ThresholdViolation")
      << json::serialize(missed);
}

}  // namespace
}  // namespace nvcre::actors

namespace nvcre::actors {
namespace {

// A training run long enough to log its steps: the GoodputMeasurement completes from the workers'
// logs with a goodput ratio, and a goodputRatio threshold is judged on it.
TEST_F(ManagerMeasurement, ATrainingRunIsMeasuredForGoodput) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::milliseconds(3000);
  EmbeddedManagerTest::start(std::move(options));
  client_->create(
      kCertifications, "it",
      training_certification("train", {{"thresholds", {{"goodputRatio", "value > 0.1"}}}}));
  const Verdict v = wait_for_verdict("train");
  EXPECT_EQ(v.type, "Succeeded") << v.reason << ": " << v.message;
  const auto measurements = items({"nvcre.nvidia.com", "v1alpha1", "goodputmeasurements", true});
  ASSERT_FALSE(measurements.empty());
  for (const auto& m : measurements) {
    EXPECT_EQ(text(condition(m, "Complete"), "reason"), "JobSucceeded") << json::serialize(m);
    const double ratio = std::stod(std::string(m.at("status").at("result").as_string()));
    EXPECT_GT(ratio, 0.1) << json::serialize(m);
    EXPECT_LE(ratio, 1.0) << json::serialize(m);
  }
}

}  // namespace
}  // namespace nvcre::actors

namespace nvcre::actors {
namespace {

// A group whose training stops logging steps while its pods keep running is failed as
// WorkloadStalled (no checkpoint to restart from); the healthy group succeeds.
TEST_F(ManagerMeasurement, AStalledTrainingRunFailsAsWorkloadStalled) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::milliseconds(3000);
  options.stall_nodes = {"gpu-node-02"};
  EmbeddedManagerTest::start(std::move(options));
  client_->create(kCertifications, "it", training_certification("stall", {}));
  const Verdict v = wait_for_verdict("stall", std::chrono::seconds(150));
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  int stalled = 0;
  for (const auto& job : items(kJobs)) {
    const Verdict j = verdict_of(job);
    const std::string nodes = std::string(
        job.at("metadata").at("annotations").at("nvcre.nvidia.com/group-nodes").as_string());
    if (nodes.find("gpu-node-02") == std::string::npos) {
      EXPECT_EQ(j.type, "Succeeded") << json::serialize(job);
      continue;
    }
    ++stalled;
    EXPECT_EQ(j.type, "Failed");
    EXPECT_EQ(j.reason, "WorkloadStalled") << j.message;
    EXPECT_TRUE(j.message.starts_with("Workload stalled: ")) << j.message;
  }
  EXPECT_EQ(stalled, 1);
}

}  // namespace
}  // namespace nvcre::actors

namespace nvcre::actors {
namespace {

// With checkpoints, a stalled group restarts from its last checkpoint instead of failing; once the
// node recovers (its stall cleared while the Job restarts) the new run completes and the Job
// succeeds.
TEST_F(ManagerMeasurement, AStalledRunRestartsFromItsCheckpointAndSucceeds) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::milliseconds(3000);
  options.stall_nodes = {"gpu-node-02"};
  EmbeddedManagerTest::start(std::move(options));
  // A checkpoint at step 20, before the stall (after step 30).
  client_->create(
      kCertifications, "it",
      training_certification(
          "restart", {{"enableCheckpoint", true}, {"saveInterval", 20}, {"maxRestarts", 1}}));

  bool restarting = false;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  while (!restarting && std::chrono::steady_clock::now() < until) {
    for (const auto& job : items(kJobs))
      restarting |= text(condition(job, "InProgress"), "reason") == "WorkloadRestarting";
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(restarting) << "no Job restarted from its checkpoint";
  client_->merge_patch(
      {"", "v1", "nodes", false}, "", "gpu-node-02",
      json::object{{"metadata", {{"annotations", {{"sim.nvcre.nvidia.com/stall", nullptr}}}}}});

  const Verdict v = wait_for_verdict("restart", std::chrono::seconds(150));
  EXPECT_EQ(v.type, "Succeeded") << v.reason << ": " << v.message;
  int restarted = 0;
  for (const auto& job : items(kJobs)) {
    const auto* count = job.at("status").as_object().if_contains("restartCount");
    if (count != nullptr && count->as_int64() == 1) ++restarted;
  }
  EXPECT_EQ(restarted, 1);
}

}  // namespace
}  // namespace nvcre::actors

namespace nvcre::actors {
namespace {

// A goodputRatio threshold no run can meet (the ratio is at most 1): the measured ratio is judged
// on the Job, which fails with the value and the expression, and the Certification fails with it.
TEST_F(ManagerMeasurement, AGoodputThresholdMissedFailsWithTheMeasuredRatio) {
  manager::EmbeddedClusterOptions options;
  options.trainer_run = std::chrono::milliseconds(3000);
  EmbeddedManagerTest::start(std::move(options));
  client_->create(kCertifications, "it",
                  training_certification("goodput-missed",
                                         {{"thresholds", {{"goodputRatio", "value > 1.0"}}}}));
  const Verdict v = wait_for_verdict("goodput-missed");
  EXPECT_EQ(v.type, "Failed") << v.reason << ": " << v.message;
  const json::value cert = client_->get(kCertifications, "it", "goodput-missed");
  EXPECT_EQ(text(condition(cert, "ValidationFailed"), "reason"), "ThresholdViolation")
      << json::serialize(cert);
  const auto jobs = items(kJobs);
  ASSERT_FALSE(jobs.empty());
  for (const auto& job : jobs) {
    const auto* validation = condition(job, "ValidationFailed");
    ASSERT_NE(validation, nullptr) << json::serialize(job);
    EXPECT_EQ(text(validation, "reason"), "ThresholdViolated");
    const std::string message = text(validation, "message");
    EXPECT_TRUE(message.starts_with("Threshold \"goodputRatio\" violated: measured 0.")) << message;
    EXPECT_TRUE(message.ends_with(", expression: value > 1.0")) << message;
  }
}

// retryFailedGroups: 1 and a node whose pods fail: the group's Job fails, is deleted and created
// again under the same name with a new UID. The BandwidthMeasurement of the first Job is deleted
// and a new one measures the new Job (its job-uid annotation names the new UID).
TEST_F(ManagerMeasurement, AGroupRetryReplacesTheJobAndItsMeasurement) {
  manager::EmbeddedClusterOptions options;
  options.faulty_nodes = {"gpu-node-01"};
  EmbeddedManagerTest::start(std::move(options));
  const std::string measured = "retry-group-0-iter-1-bandwidth";  // the faulty node's group

  // The lifecycle of that group's measurement, as a watch sees it: (event, uid).
  std::mutex mutex;
  std::vector<std::pair<k8s::WatchEventType, std::string>> seen;
  std::jthread watcher([&](std::stop_token stop) {
    k8s::WatchOptions watch;
    watch.stop = stop;
    client_->watch(kBandwidthMeasurements, "it", watch, [&](k8s::WatchEvent& event) {
      const auto* meta =
          event.object.is_object() ? event.object.as_object().if_contains("metadata") : nullptr;
      const auto* name = meta == nullptr ? nullptr : meta->as_object().if_contains("name");
      if (name != nullptr && name->as_string() == measured) {
        std::lock_guard lock(mutex);
        seen.emplace_back(event.type, std::string(meta->at("uid").as_string()));
      }
      return k8s::WatchControl::Continue;
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the watch is open

  json::value run = workload_run("retry", "value >= 300");
  run.at("spec").as_object()["overrides"] = json::array{json::object{
      {"when", json::object{}}, {"orchestration", {{"execution", {{"retryFailedGroups", 1}}}}}}};
  client_->create(nvcre::testing::kWorkloadRuns, "it", run);
  const json::value finished =
      wait_for_verdict_object(nvcre::testing::kWorkloadRuns, "retry", std::chrono::seconds(120));
  ASSERT_FALSE(finished.is_null()) << "the WorkloadRun reached no verdict";
  EXPECT_EQ(verdict_of(finished).type, "Failed") << json::serialize(finished);

  const auto workflows = items({"nvcre.nvidia.com", "v1alpha1", "workflows", true});
  ASSERT_EQ(workflows.size(), 1U);
  const auto& group = workflows[0].at("status").at("orchestration").at("groups").as_array()[0];
  EXPECT_EQ(group.at("retries").as_int64(), 1) << json::serialize(group);
  const json::value job = client_->get(kJobs, "it", "retry-group-0-iter-1");
  const std::string job_uid = std::string(job.at("metadata").at("uid").as_string());
  const json::value measurement = client_->get(kBandwidthMeasurements, "it", measured);
  const std::string measurement_uid = std::string(measurement.at("metadata").at("uid").as_string());
  EXPECT_EQ(
      std::string(
          measurement.at("metadata").at("annotations").at("nvcre.nvidia.com/job-uid").as_string()),
      job_uid);

  watcher.request_stop();
  watcher.join();
  std::lock_guard lock(mutex);
  ASSERT_FALSE(seen.empty());
  const std::string first_uid = seen.front().second;
  EXPECT_EQ(seen.front().first, k8s::WatchEventType::Added);
  EXPECT_NE(first_uid, measurement_uid) << "the first Job's measurement was kept";
  const bool first_deleted =
      std::find(seen.begin(), seen.end(), std::pair{k8s::WatchEventType::Deleted, first_uid}) !=
      seen.end();
  EXPECT_TRUE(first_deleted) << "the first Job's measurement was never deleted";
  const bool replacement_added =
      std::find(seen.begin(), seen.end(), std::pair{k8s::WatchEventType::Added, measurement_uid}) !=
      seen.end();
  EXPECT_TRUE(replacement_added);
}

}  // namespace
}  // namespace nvcre::actors
