#pragma once
// The measurement kinds of nvcre.nvidia.com/v1alpha1: GoodputMeasurement and BandwidthMeasurement
// (namespaced, status subresource, created by the Job controller and owned by the Workflow), and
// LogProfile (cluster-scoped, no status): the regexes that turn a framework's log lines into
// measured events.
#include "api/codec.hpp"
#include "api/common_types.hpp"
#include "api/meta.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// Conditions of both measurement kinds.
inline constexpr std::string_view kConditionMeasuring = "Measuring";
inline constexpr std::string_view kConditionComplete = "Complete";

namespace measurement_reason {
inline constexpr std::string_view kJobRunning = "JobRunning";      // Measuring True
inline constexpr std::string_view kJobSucceeded = "JobSucceeded";  // Complete: the final result
inline constexpr std::string_view kJobFailed = "JobFailed";        // Complete: not evaluated
inline constexpr std::string_view kNoDataCollected = "NoDataCollected";
inline constexpr std::string_view kLogsUnavailable = "LogsUnavailable";
inline constexpr std::string_view kFinalReadPending = "FinalReadPending";      // Measuring False
inline constexpr std::string_view kLogProfileNotFound = "LogProfileNotFound";  // Measuring False
}  // namespace measurement_reason

inline constexpr std::string_view kGoodputMeasurementFinalizer =
    "nvcre.nvidia.com/goodputmeasurement-finalizer";
inline constexpr std::string_view kBandwidthMeasurementFinalizer =
    "nvcre.nvidia.com/bandwidthmeasurement-finalizer";
// On a BandwidthMeasurement: the uid of the Job instance it measures (a group retry replaces the
// Job under the same name).
inline constexpr std::string_view kJobUidAnnotation = "nvcre.nvidia.com/job-uid";
// Where a measurement names its Job (a JSON pointer): the manager's cache indexes it for both
// kinds, so whoever looks for a Job's measurements reads only those (as a field index would).
inline constexpr std::string_view kJobRefNamePointer = "/spec/jobRef/name";

// ---------------------------------------------------------------------------------------------
// GoodputMeasurement

struct GoodputMeasurementSpec {
  TypedLocalObjectReference jobRef{};
  std::string logProfileRef{};
  std::string sampleInterval{};  // Go duration, default 60s

  static constexpr std::string_view json_always_encoded[] = {"logProfileRef"};
  bool operator==(const GoodputMeasurementSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(GoodputMeasurementSpec, (), (jobRef, logProfileRef, sampleInterval))

// An interruption seen (the workload went away) and not yet closed by the first step of the
// restarted run; persisted so a controller restart does not lose it.
struct PendingInterruption {
  std::string tCheckpoint{};
  std::string tInterrupt{};
  std::optional<std::int64_t> checkpointStep{};
  std::optional<std::int64_t> lastStep{};
  std::string tCh{};
  std::string reason{};
  bool operator==(const PendingInterruption&) const = default;
};
BOOST_DESCRIBE_STRUCT(PendingInterruption, (),
                      (tCheckpoint, tInterrupt, checkpointStep, lastStep, tCh, reason))

// Numbers the API keeps as strings (ratios, seconds) stay strings here.
struct GoodputMeasurementStatus {
  std::string result{};
  std::optional<std::int64_t> currentStep{};
  std::optional<std::int64_t> highestStep{};
  std::string trainingTimeSec{};
  std::string lostWorkTimeSec{};
  std::string rescheduleTimeSec{};
  std::string resumeTimeSec{};
  std::string checkpointSaveTimeSec{};
  std::optional<std::int64_t> interruptionCount{};
  std::optional<std::int64_t> lastCheckpointStep{};
  std::string lastCheckpointTime{};
  std::string startTime{};
  std::string completionTime{};
  std::string lastStepTimestamp{};
  std::string avgStepTimeSec{};
  std::optional<std::int64_t> logInterval{};
  std::optional<std::int64_t> warmupBaseStep{};
  std::string warmupTimeSec{};
  std::string nonWarmupTimeSec{};
  std::optional<std::int64_t> lastNonWarmupStep{};
  std::string priorWarmupTimeSec{};
  std::string priorNonWarmupTimeSec{};
  std::string avgTFLOPSPerGPU{};
  std::string applicationStartTime{};
  std::string applicationStopTime{};
  std::optional<PendingInterruption> pendingInterruption{};
  std::vector<Condition> conditions{};
  bool operator==(const GoodputMeasurementStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(GoodputMeasurementStatus, (),
                      (result, currentStep, highestStep, trainingTimeSec, lostWorkTimeSec,
                       rescheduleTimeSec, resumeTimeSec, checkpointSaveTimeSec, interruptionCount,
                       lastCheckpointStep, lastCheckpointTime, startTime, completionTime,
                       lastStepTimestamp, avgStepTimeSec, logInterval, warmupBaseStep,
                       warmupTimeSec, nonWarmupTimeSec, lastNonWarmupStep, priorWarmupTimeSec,
                       priorNonWarmupTimeSec, avgTFLOPSPerGPU, applicationStartTime,
                       applicationStopTime, pendingInterruption, conditions))

struct GoodputMeasurement {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  GoodputMeasurementSpec spec{};
  std::optional<GoodputMeasurementStatus> status{};

  static constexpr std::string_view kKind = "GoodputMeasurement";
  bool operator==(const GoodputMeasurement&) const = default;
};
BOOST_DESCRIBE_STRUCT(GoodputMeasurement, (), (apiVersion, kind, metadata, spec, status))

// ---------------------------------------------------------------------------------------------
// BandwidthMeasurement

struct BandwidthMeasurementSpec {
  TypedLocalObjectReference jobRef{};
  std::string logProfileRef{};
  std::string sampleInterval{};  // Go duration, default 60s
  std::string testType{};        // the collective (all_reduce, alltoall, ...): a metric label

  static constexpr std::string_view json_always_encoded[] = {"logProfileRef"};
  bool operator==(const BandwidthMeasurementSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(BandwidthMeasurementSpec, (),
                      (jobRef, logProfileRef, sampleInterval, testType))

// One message size: the average over `samples` rows, GB/s with two decimals.
struct BandwidthResult {
  std::int64_t sizeBytes = 0;
  std::string algBW{};
  std::string busBW{};
  std::int64_t samples = 0;

  static constexpr std::string_view json_always_encoded[] = {"sizeBytes", "algBW", "busBW",
                                                             "samples"};
  bool operator==(const BandwidthResult&) const = default;
};
BOOST_DESCRIBE_STRUCT(BandwidthResult, (), (sizeBytes, algBW, busBW, samples))

struct BandwidthMeasurementStatus {
  std::vector<BandwidthResult> results{};
  std::vector<std::string> transport{};  // NCCL network names seen ("IB", "AWS Libfabric"), sorted
  std::string startTime{};
  std::string completionTime{};
  std::vector<Condition> conditions{};
  bool operator==(const BandwidthMeasurementStatus&) const = default;
};
BOOST_DESCRIBE_STRUCT(BandwidthMeasurementStatus, (),
                      (results, transport, startTime, completionTime, conditions))

struct BandwidthMeasurement {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  BandwidthMeasurementSpec spec{};
  std::optional<BandwidthMeasurementStatus> status{};

  static constexpr std::string_view kKind = "BandwidthMeasurement";
  bool operator==(const BandwidthMeasurement&) const = default;
};
BOOST_DESCRIBE_STRUCT(BandwidthMeasurement, (), (apiVersion, kind, metadata, spec, status))

// ---------------------------------------------------------------------------------------------
// LogProfile

struct TimestampSpec {
  std::string layout{};  // Go time layout for captured (?P<timestamp>...) groups

  static constexpr std::string_view json_always_encoded[] = {"layout"};
  bool operator==(const TimestampSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(TimestampSpec, (), (layout))

// A regex with named groups ((?P<name>...) or (?<name>...)), a line it must match, and the unit
// (s, ms, us) of each duration capture (seconds when absent).
struct EventPattern {
  std::string regex{};
  std::string example{};
  std::map<std::string, std::string> units{};

  static constexpr std::string_view json_always_encoded[] = {"regex"};
  bool operator==(const EventPattern&) const = default;
};
BOOST_DESCRIBE_STRUCT(EventPattern, (), (regex, example, units))

struct LogPatternSet {
  std::optional<EventPattern> trainingStep{};
  std::optional<EventPattern> checkpointSave{};
  std::optional<EventPattern> checkpointDone{};
  std::optional<EventPattern> checkpointRestore{};
  std::optional<EventPattern> checkpointLoaded{};
  std::optional<EventPattern> applicationStart{};
  std::optional<EventPattern> warmupStep{};
  std::optional<EventPattern> bandwidthResult{};
  bool operator==(const LogPatternSet&) const = default;
};
BOOST_DESCRIBE_STRUCT(LogPatternSet, (),
                      (trainingStep, checkpointSave, checkpointDone, checkpointRestore,
                       checkpointLoaded, applicationStart, warmupStep, bandwidthResult))

namespace worker_strategy {
inline constexpr std::string_view kSingle = "Single";
inline constexpr std::string_view kMulti = "Multi";
inline constexpr std::string_view kFirst = "first";
inline constexpr std::string_view kLast = "last";
inline constexpr std::string_view kDefaultReplicatedJob = "trainer";
}  // namespace worker_strategy

struct WorkerStrategySpec {
  std::string type{};
  std::string lifecyclePod{};       // default first
  std::string trainingStepPod{};    // default first
  std::string replicatedJobName{};  // default trainer; launcher for MPI

  static constexpr std::string_view json_always_encoded[] = {"type"};
  bool operator==(const WorkerStrategySpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(WorkerStrategySpec, (),
                      (type, lifecyclePod, trainingStepPod, replicatedJobName))

struct LogProfileSpec {
  TimestampSpec timestamp{};
  LogPatternSet patterns{};
  std::optional<WorkerStrategySpec> workerStrategy{};
  std::string containerName{};
  std::optional<std::int64_t> warmupSteps{};
  std::optional<std::int64_t> logInterval{};

  static constexpr std::string_view json_always_encoded[] = {"timestamp", "patterns"};
  bool operator==(const LogProfileSpec&) const = default;
};
BOOST_DESCRIBE_STRUCT(LogProfileSpec, (),
                      (timestamp, patterns, workerStrategy, containerName, warmupSteps,
                       logInterval))

struct LogProfile {
  std::string apiVersion{};
  std::string kind{};
  ObjectMeta metadata{};
  LogProfileSpec spec{};

  static constexpr std::string_view kKind = "LogProfile";
  bool operator==(const LogProfile&) const = default;
};
BOOST_DESCRIBE_STRUCT(LogProfile, (), (apiVersion, kind, metadata, spec))

}  // namespace nvcre::api
