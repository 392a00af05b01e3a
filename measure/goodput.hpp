#pragma once
// Goodput accounting: how a GoodputMeasurement's status moves when the training log shows more
// steps and checkpoints, when the workload is interrupted, and when the Job ends. No I/O and no
// clock: the caller passes the new window's events and `now`.
//
//   goodput = (t_w - (t_rm + t_ch) - t_re - t_save) / (t_w - t_re)
//     t_w     trainingTimeSec        now (or the terminal anchor) - the first training step
//     t_ch    lostWorkTimeSec        per interruption: interruption time - last checkpoint time
//     t_re    rescheduleTimeSec      per interruption: restarted app start - interruption time
//     t_rm    resumeTimeSec          per interruption: first new step - restarted app start,
//                                    plus the first start's app start -> first step
//     t_save  checkpointSaveTimeSec  the save durations of the checkpoints seen
// 0 when the denominator is <= 0 or the numerator < 0.
//
// The status is the whole state between samples except an unfinished two-line checkpoint save,
// which the caller carries (PendingCheckpointSave). Seconds and ratios are stored as decimal
// strings with six places.
#include "api/measurement.hpp"
#include "k8s/rfc3339.hpp"
#include "measure/log_events.hpp"
#include "measure/log_profile.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::measure {

// The reasons an interruption is recorded with.
inline constexpr std::string_view kInterruptionWorkloadRestarted = "WorkloadRestarted";
inline constexpr std::string_view kInterruptionJobFailed = "JobFailed";

// The goodput formula (seconds in, ratio out).
double goodput_ratio(double t_w, double t_ch, double t_re, double t_rm, double t_save);

// A status number: six decimals ("0.912345"); and back (0 for "" or anything not a number).
std::string format_status_number(double value);
double parse_status_number(std::string_view text);

// A checkpoint save line seen without its done line yet: the done line's time minus `at` is the
// save duration when it comes in a later window.
struct PendingCheckpointSave {
  std::int64_t step = 0;
  k8s::Clock::time_point at;
  bool operator==(const PendingCheckpointSave&) const = default;
};

// Training has started in the current run: a first step was seen and no interruption is open.
bool training_started(const api::GoodputMeasurementStatus& status);

// Whether a running Job shows an interruption not yet recorded: training had started and the
// workload is gone (a restart is in progress) or the Job counts more restarts than the status.
bool interruption_detected(const api::GoodputMeasurementStatus& status, bool workload_present,
                           std::int64_t job_restart_count);

// Records an interruption at `interrupted_at`: lost work since the last checkpoint, one more
// interruption, an open pendingInterruption that the first step of the next run closes, and the
// run's application start forgotten. A restart also clears lastStepTimestamp and avgStepTimeSec,
// so a stall check does not fire on the previous run's numbers.
void record_interruption(api::GoodputMeasurementStatus& status, std::string_view reason,
                         k8s::Clock::time_point interrupted_at);

struct GoodputWindow {
  const CompiledProfile& profile;
  std::span<const LogEvent> events;  // the new log window, in log order
  // The latest kubelet time of any line in the window (nullopt: no timestamped line).
  std::optional<k8s::Clock::time_point> last_log_time;
  k8s::Clock::time_point now;  // the sample time; the terminal anchor for a final merge
  std::optional<PendingCheckpointSave> pending_save;
  // A final merge: events after `now` (whole seconds: the Job condition's time) are dropped, steps
  // never move back, the averages are kept unless the window reaches past the highest step already
  // recorded. Either way a window with a timestamped line stops the application at `now`.
  bool terminal = false;
};

struct GoodputUpdate {
  api::GoodputMeasurementStatus status;
  std::optional<PendingCheckpointSave> pending_save;  // carry to the next window
};

// Folds one window into the status (conditions untouched).
GoodputUpdate merge_goodput_window(api::GoodputMeasurementStatus status,
                                   const GoodputWindow& window);

// The events of a Multi worker strategy: the lifecycle pod's application start, checkpoint and
// restore events and the step pod's training steps, in time order (untimed events keep their
// place after the timed ones before them).
std::vector<LogEvent> combine_worker_events(std::span<const LogEvent> lifecycle,
                                            std::span<const LogEvent> steps);

// A failed Job's final numbers: an interruption (reason JobFailed) at `terminated_at`, training
// time up to it, and the run's warmup / non-warmup times kept as the prior ones.
void account_job_failure(api::GoodputMeasurementStatus& status,
                         k8s::Clock::time_point terminated_at);

}  // namespace nvcre::measure
