#include "measure/goodput.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace nvcre::measure {
namespace {

using Clock = k8s::Clock;
using TimePoint = Clock::time_point;

// Only the most recent steps of a window feed the averages.
constexpr std::size_t kMaxWindowSteps = 100;

// In double: two nanosecond time points from log lines centuries apart (1709 and 2026 are both
// representable) overflow int64 when subtracted.
double seconds_between(TimePoint from, TimePoint to) {
  using Seconds = std::chrono::duration<double>;
  return (Seconds(to.time_since_epoch()) - Seconds(from.time_since_epoch())).count();
}

std::optional<TimePoint> time_of(std::string_view rfc3339) {
  if (rfc3339.empty()) return std::nullopt;
  return k8s::parse_rfc3339(rfc3339);
}

std::string time_text(TimePoint at) { return k8s::format_rfc3339(at); }

std::int64_t int_capture(const Captures& captures, std::string_view name) {
  auto it = captures.find(name);
  if (it == captures.end()) return 0;
  return parse_int_capture(it->second).value_or(0);
}

double float_capture(const Captures& captures, std::string_view name) {
  auto it = captures.find(name);
  if (it == captures.end()) return 0;
  return parse_float_capture(it->second).value_or(0);
}

double seconds_capture(const CompiledPattern* pattern, const Captures& captures,
                       std::string_view name) {
  if (pattern == nullptr) return 0;
  return pattern->seconds(captures, name).value_or(0);
}

struct Step {
  std::int64_t step = 0;
  std::optional<TimePoint> at;
  double timing = 0;  // seconds per iteration
  double tflops = 0;
  bool warmup = false;
};

struct Checkpoint {
  std::int64_t step = 0;
  std::optional<TimePoint> at;
  double save_seconds = 0;
};

// What one window shows, read in log order.
struct WindowScan {
  std::optional<TimePoint> application_start;  // the first applicationStart with a time
  std::vector<Step> steps;                     // the last kMaxWindowSteps
  std::optional<Step> first_step;
  std::vector<Checkpoint> checkpoints;
  std::optional<PendingCheckpointSave> open_save;  // a save line whose done line did not come
};

Step step_of(const CompiledProfile& profile, const LogEvent& event) {
  const CompiledPattern* pattern = profile.pattern("trainingStep");
  Step step{.at = event.timestamp, .warmup = event.warmup};
  // Frameworks name the counter globalStep or iteration, the duration stepTiming or elapsedTime.
  step.step = int_capture(event.captures, "globalStep");
  if (step.step == 0) step.step = int_capture(event.captures, "iteration");
  step.timing = seconds_capture(pattern, event.captures, "stepTiming");
  if (step.timing == 0) step.timing = seconds_capture(pattern, event.captures, "elapsedTime");
  step.tflops = float_capture(event.captures, "tflops");
  return step;
}

class WindowScanner {
 public:
  explicit WindowScanner(const CompiledProfile& profile) : profile_(profile) {}

  void add(const LogEvent& event) {
    const std::string& name = event.pattern;
    if (name == "applicationStart") {
      if (event.timestamp && !scan_.application_start) {
        scan_.application_start = event.timestamp;
        start_new_run();
      }
    } else if (name == "trainingStep") {
      add_step(step_of(profile_, event));
    } else if (name == "checkpointDone") {
      checkpoint_done(event);
    } else if (name == "checkpointSave") {
      checkpoint_save(event);
    } else if (name == "checkpointRestore") {
      start_new_run();
    }
  }

  WindowScan finish() {
    if (open_ && !open_completed_ && open_->at) {
      scan_.open_save = PendingCheckpointSave{open_->step, *open_->at};
    }
    return std::move(scan_);
  }

 private:
  // The first step after an application start or a checkpoint restore is the warmup base.
  void start_new_run() {
    warmup_pending_ = true;
    warmup_base_.reset();
  }

  void add_step(Step step) {
    const std::int64_t interval = profile_.log_interval.value_or(0);
    // A step off the logging interval is the first one after a (re)start: its timing holds the
    // start-up, not training.
    if (interval > 1 && step.step % interval != 0) return;
    const std::int64_t warmup_steps = profile_.warmup_steps.value_or(0);
    if (warmup_steps > 0) {
      if (warmup_pending_) {
        warmup_base_ = step.step;
        warmup_pending_ = false;
      }
      if (warmup_base_ && step.step - *warmup_base_ < warmup_steps) step.warmup = true;
    }
    if (!scan_.first_step) scan_.first_step = step;
    scan_.steps.push_back(step);
    if (scan_.steps.size() > kMaxWindowSteps) scan_.steps.erase(scan_.steps.begin());
  }

  // A single save line with its duration completes a checkpoint (its done line, if any, only
  // closes it); a save line without one waits for the done line.
  void checkpoint_save(const LogEvent& event) {
    const CompiledPattern* pattern = profile_.pattern("checkpointSave");
    Checkpoint checkpoint{int_capture(event.captures, "step"), event.timestamp, 0};
    if (auto d = event.captures.find("saveDuration");
        d != event.captures.end() && !d->second.empty()) {
      checkpoint.save_seconds = seconds_capture(pattern, event.captures, "saveDuration");
      scan_.checkpoints.push_back(checkpoint);
      open_completed_ = true;
    } else {
      open_completed_ = false;
    }
    open_ = checkpoint;
  }

  void checkpoint_done(const LogEvent& event) {
    if (open_completed_ && !scan_.checkpoints.empty()) {
      close_open();
      return;
    }
    const CompiledPattern* pattern = profile_.pattern("checkpointDone");
    Checkpoint checkpoint{int_capture(event.captures, "step"), event.timestamp, 0};
    if (auto d = event.captures.find("saveDuration");
        d != event.captures.end() && !d->second.empty()) {
      checkpoint.save_seconds = seconds_capture(pattern, event.captures, "saveDuration");
    } else if (open_ && open_->at && event.timestamp) {
      checkpoint.save_seconds = seconds_between(*open_->at, *event.timestamp);
    }
    if (checkpoint.step == 0 && open_ && open_->step > 0) checkpoint.step = open_->step;
    scan_.checkpoints.push_back(checkpoint);
    close_open();
  }

  void close_open() {
    open_.reset();
    open_completed_ = false;
  }

  const CompiledProfile& profile_;
  WindowScan scan_;
  bool warmup_pending_ = false;
  std::optional<std::int64_t> warmup_base_;
  std::optional<Checkpoint> open_;
  bool open_completed_ = false;
};

WindowScan scan_window(const GoodputWindow& window) {
  WindowScanner scanner(window.profile);
  for (const auto& event : window.events) {
    // The terminal anchor is a condition time, whole seconds: lines of its second are before it.
    if (window.terminal && event.timestamp &&
        std::chrono::floor<std::chrono::seconds>(*event.timestamp) > window.now)
      continue;
    scanner.add(event);
  }
  return scanner.finish();
}

// The accumulated seconds, read from and written back to their status strings.
struct Totals {
  double training = 0;
  double lost_work = 0;
  double reschedule = 0;
  double resume = 0;
  double checkpoint_save = 0;
  double goodput = 0;

  explicit Totals(const api::GoodputMeasurementStatus& s)
      : training(parse_status_number(s.trainingTimeSec)),
        lost_work(parse_status_number(s.lostWorkTimeSec)),
        reschedule(parse_status_number(s.rescheduleTimeSec)),
        resume(parse_status_number(s.resumeTimeSec)),
        checkpoint_save(parse_status_number(s.checkpointSaveTimeSec)),
        goodput(parse_status_number(s.result)) {}

  void recompute(std::optional<double> t_w) {
    if (!t_w) return;
    training = *t_w;
    goodput = goodput_ratio(training, lost_work, reschedule, resume, checkpoint_save);
  }

  void write(api::GoodputMeasurementStatus& s) const {
    s.result = format_status_number(goodput);
    s.trainingTimeSec = format_status_number(training);
    s.lostWorkTimeSec = format_status_number(lost_work);
    s.rescheduleTimeSec = format_status_number(reschedule);
    s.resumeTimeSec = format_status_number(resume);
    s.checkpointSaveTimeSec = format_status_number(checkpoint_save);
    // The reference's counters are omitempty integers: a count of 0 is not written at all (the
    // status patch turns a count falling back to 0 into a null, so nothing stale stays behind).
    for (std::optional<std::int64_t>* count :
         {&s.currentStep, &s.highestStep, &s.lastCheckpointStep, &s.interruptionCount,
          &s.lastNonWarmupStep, &s.logInterval}) {
      if (*count && **count == 0) count->reset();
    }
  }
};

std::optional<double> training_seconds(const api::GoodputMeasurementStatus& s, TimePoint until) {
  if (!training_started(s)) return std::nullopt;
  auto start = time_of(s.startTime);
  if (!start) return std::nullopt;
  return seconds_between(*start, until);
}

double average_step_seconds(const std::vector<Step>& steps) {
  std::vector<const Step*> measured;
  for (const auto& step : steps) {
    if (!step.warmup) measured.push_back(&step);
  }
  double sum = 0;
  int count = 0;
  for (const Step* step : measured) {
    if (step->timing > 0) {
      sum += step->timing;
      ++count;
    }
  }
  if (count > 0) return sum / count;
  // No timing captured: the gaps between logged steps, per step (a gap spans logInterval steps).
  for (std::size_t i = 1; i < measured.size(); ++i) {
    const Step& a = *measured[i - 1];
    const Step& b = *measured[i];
    if (!a.at || !b.at) continue;
    const double gap = seconds_between(*a.at, *b.at);
    if (gap <= 0) continue;
    sum += gap / static_cast<double>(std::max<std::int64_t>(b.step - a.step, 1));
    ++count;
  }
  return count > 0 ? sum / count : 0;
}

double average_tflops(const std::vector<Step>& steps) {
  double sum = 0;
  int count = 0;
  for (const auto& step : steps) {
    if (step.tflops > 0) {
      sum += step.tflops;
      ++count;
    }
  }
  return count > 0 ? sum / count : 0;
}

// Time of the non-warmup steps above the watermark: each logged timing is per iteration and
// stands for the steps since the previous logged one.
double non_warmup_seconds(const std::vector<Step>& steps, std::int64_t watermark,
                          std::int64_t log_interval) {
  double sum = 0;
  std::int64_t previous = 0;
  for (const auto& step : steps) {
    if (!step.warmup && step.step > watermark && step.timing > 0) {
      std::int64_t delta = step.step - previous;
      if (previous == 0 || delta < 1) delta = std::max<std::int64_t>(log_interval, 1);
      sum += step.timing * static_cast<double>(delta);
    }
    previous = step.step;
  }
  return sum;
}

// A first step closes the open interruption: rescheduling ran from the interruption to the new
// application start, resuming from there to the first step.
void close_interruption(api::GoodputMeasurementStatus& s, Totals& totals, const WindowScan& scan,
                        TimePoint first_step_at) {
  const api::PendingInterruption& open = *s.pendingInterruption;
  if (open.checkpointStep.value_or(0) == 0) {  // restarted from scratch: earlier work is gone
    s.priorWarmupTimeSec.clear();
    s.priorNonWarmupTimeSec.clear();
  }
  // The checkpoint the run resumed from, when the status did not keep its time (a status restored
  // by hand or by an older writer), as the reference rebuilds it from the pending interruption.
  if (s.lastCheckpointTime.empty() && open.checkpointStep.value_or(0) > 0)
    s.lastCheckpointTime = open.tCheckpoint;
  TimePoint scheduled = first_step_at;
  if (scan.application_start) {
    scheduled = *scan.application_start;
  } else if (auto known = time_of(s.applicationStartTime)) {
    scheduled = *known;
  }
  const TimePoint interrupted = time_of(open.tInterrupt).value_or(scheduled);
  totals.reschedule += std::max(0.0, seconds_between(interrupted, scheduled));
  totals.resume += std::max(0.0, seconds_between(scheduled, first_step_at));
  s.pendingInterruption.reset();
  s.nonWarmupTimeSec = s.priorNonWarmupTimeSec;
  s.lastNonWarmupStep = 0;
}

// The first step of a run: training (re)starts, the warmup base moves to it.
void start_training(api::GoodputMeasurementStatus& s, Totals& totals, const WindowScan& scan,
                    const GoodputWindow& window) {
  const Step& first = *scan.first_step;
  const TimePoint first_at = first.at.value_or(window.now);
  if (s.startTime.empty()) s.startTime = time_text(first_at);
  s.warmupBaseStep = first.step;
  if (!s.pendingInterruption) {
    // The first start's initialisation (app start -> first step) counts as resume time.
    if (auto app_start = time_of(s.applicationStartTime)) {
      const double startup = seconds_between(*app_start, first_at);
      if (startup > 0) totals.resume += startup;
    }
  } else {
    close_interruption(s, totals, scan, first_at);
  }
  if (first.timing > 0 && window.profile.warmup_steps.value_or(0) > 0) {
    s.warmupTimeSec =
        format_status_number(parse_status_number(s.priorWarmupTimeSec) + first.timing);
  }
}

// Checkpoints newer than the last one recorded add their save time.
void count_checkpoints(api::GoodputMeasurementStatus& s, Totals& totals, const WindowScan& scan) {
  std::int64_t counted = s.lastCheckpointStep.value_or(0);
  for (const auto& checkpoint : scan.checkpoints) {
    if (checkpoint.step <= counted) continue;
    if (checkpoint.save_seconds > 0) totals.checkpoint_save += checkpoint.save_seconds;
    counted = checkpoint.step;
  }
  if (!scan.checkpoints.empty()) {
    const Checkpoint& last = scan.checkpoints.back();
    s.lastCheckpointStep = last.step;
    if (last.at) s.lastCheckpointTime = time_text(*last.at);
  }
}

void record_step_statistics(api::GoodputMeasurementStatus& s, std::vector<Step>& steps,
                            const GoodputWindow& window, bool keep_averages) {
  const std::int64_t warmup_steps = window.profile.warmup_steps.value_or(0);
  // Warmup by the persisted base: the window may start after the application start line.
  if (warmup_steps > 0 && s.warmupBaseStep && *s.warmupBaseStep >= 0) {
    for (auto& step : steps) {
      if (step.step - *s.warmupBaseStep < warmup_steps) step.warmup = true;
    }
  }
  if (window.profile.log_interval) s.logInterval = *window.profile.log_interval;
  if (steps.empty()) return;
  const Step& last = steps.back();
  if (!keep_averages) {
    if (last.at && !last.warmup) s.lastStepTimestamp = time_text(*last.at);
    if (const double avg = average_step_seconds(steps); avg > 0)
      s.avgStepTimeSec = format_status_number(avg);
    if (const double tflops = average_tflops(steps); tflops > 0)
      s.avgTFLOPSPerGPU = format_status_number(tflops);
  }
  const std::int64_t watermark = s.lastNonWarmupStep.value_or(0);
  const double delta =
      non_warmup_seconds(steps, watermark, window.profile.log_interval.value_or(0));
  if (delta > 0)
    s.nonWarmupTimeSec = format_status_number(parse_status_number(s.nonWarmupTimeSec) + delta);
  if (last.step > watermark) s.lastNonWarmupStep = last.step;
}

void fill_pending_save(WindowScan& scan, const std::optional<PendingCheckpointSave>& carried) {
  if (!carried) return;
  for (auto& checkpoint : scan.checkpoints) {
    if (checkpoint.save_seconds == 0 && checkpoint.at && checkpoint.step == carried->step)
      checkpoint.save_seconds = seconds_between(carried->at, *checkpoint.at);
  }
}

}  // namespace

double goodput_ratio(double t_w, double t_ch, double t_re, double t_rm, double t_save) {
  const double denominator = t_w - t_re;
  if (denominator <= 0) return 0;
  const double numerator = t_w - (t_rm + t_ch) - t_re - t_save;
  if (numerator < 0) return 0;
  return numerator / denominator;
}

std::string format_status_number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6f", value);
  return buffer;
}

double parse_status_number(std::string_view text) { return parse_float_capture(text).value_or(0); }

bool training_started(const api::GoodputMeasurementStatus& status) {
  return !status.startTime.empty() && !status.pendingInterruption;
}

bool interruption_detected(const api::GoodputMeasurementStatus& status, bool workload_present,
                           std::int64_t job_restart_count) {
  if (!training_started(status)) return false;
  return !workload_present || job_restart_count > status.interruptionCount.value_or(0);
}

void record_interruption(api::GoodputMeasurementStatus& status, std::string_view reason,
                         k8s::Clock::time_point interrupted_at) {
  Totals totals(status);
  api::PendingInterruption open{.tCheckpoint = status.lastCheckpointTime,
                                .tInterrupt = time_text(interrupted_at),
                                .checkpointStep = status.lastCheckpointStep.value_or(0),
                                .lastStep = status.currentStep.value_or(0),
                                .tCh = {},
                                .reason = std::string(reason)};
  double lost = 0;
  if (auto checkpoint_at = time_of(status.lastCheckpointTime))
    lost = seconds_between(*checkpoint_at, interrupted_at);
  open.tCh = format_status_number(lost);
  totals.lost_work += lost;
  status.interruptionCount = status.interruptionCount.value_or(0) + 1;
  status.pendingInterruption = std::move(open);
  status.applicationStartTime.clear();
  if (reason == kInterruptionWorkloadRestarted) {
    status.lastStepTimestamp.clear();
    status.avgStepTimeSec.clear();
  }
  totals.write(status);
}

GoodputUpdate merge_goodput_window(api::GoodputMeasurementStatus status,
                                   const GoodputWindow& window) {
  api::GoodputMeasurementStatus& s = status;
  WindowScan scan = scan_window(window);
  Totals totals(s);
  // An application is alive between its logged lines (one that logs every N steps lags its crash
  // by up to N steps): its last sign of life is the sample time, and for a final merge the Job's
  // terminal transition, as the reference stamps it (a failed run's lost work runs to the anchor).
  if (window.last_log_time) s.applicationStopTime = time_text(window.now);
  fill_pending_save(scan, window.pending_save);
  std::optional<PendingCheckpointSave> carry = window.pending_save;
  if (scan.open_save) {
    carry = scan.open_save;
  } else if (!scan.checkpoints.empty()) {
    carry.reset();
  }
  const std::optional<std::int64_t> highest_before = s.highestStep;
  if (!scan.steps.empty()) {
    const std::int64_t last = scan.steps.back().step;
    s.currentStep = window.terminal ? std::max(last, s.currentStep.value_or(0)) : last;
    s.highestStep = std::max(last, s.highestStep.value_or(0));
  }
  const bool started = training_started(s);
  if (!started && scan.application_start && s.applicationStartTime.empty())
    s.applicationStartTime = time_text(*scan.application_start);
  if (!started && scan.first_step) start_training(s, totals, scan, window);
  count_checkpoints(s, totals, scan);
  totals.recompute(training_seconds(s, window.now));
  const bool advanced =
      !scan.steps.empty() && (!highest_before || scan.steps.back().step > *highest_before);
  record_step_statistics(s, scan.steps, window, window.terminal && !advanced);
  totals.write(s);
  return {std::move(status), carry};
}

std::vector<LogEvent> combine_worker_events(std::span<const LogEvent> lifecycle,
                                            std::span<const LogEvent> steps) {
  std::vector<LogEvent> combined;
  for (const auto& event : lifecycle) {
    if (event.pattern != "trainingStep") combined.push_back(event);
  }
  const std::size_t lifecycle_count = combined.size();
  for (const auto& event : steps) {
    if (event.pattern == "trainingStep") combined.push_back(event);
  }
  // Each part is in log order already: merge them by time, an untimed event inheriting the
  // time of the event before it in its own log.
  std::vector<std::optional<TimePoint>> at(combined.size());
  for (std::size_t i = 0; i < combined.size(); ++i) {
    const bool part_start = i == 0 || i == lifecycle_count;
    at[i] = combined[i].timestamp ? combined[i].timestamp : (part_start ? std::nullopt : at[i - 1]);
  }
  std::vector<std::size_t> order(combined.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return at[a].value_or(TimePoint::min()) < at[b].value_or(TimePoint::min());
  });
  std::vector<LogEvent> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(std::move(combined[i]));
  return out;
}

void account_job_failure(api::GoodputMeasurementStatus& status,
                         k8s::Clock::time_point terminated_at) {
  const auto t_w = training_seconds(status, terminated_at);
  record_interruption(status, kInterruptionJobFailed, terminated_at);
  Totals totals(status);
  if (t_w) {
    totals.training = *t_w;
    totals.goodput = goodput_ratio(totals.training, totals.lost_work, totals.reschedule,
                                   totals.resume, totals.checkpoint_save);
  }
  totals.write(status);
  status.priorWarmupTimeSec = status.warmupTimeSec;
  status.priorNonWarmupTimeSec = status.nonWarmupTimeSec;
}

}  // namespace nvcre::measure
