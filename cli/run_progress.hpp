#pragma once
// What `nvcrectl certification run --wait` tells the user while it waits, as a pure model: the
// watched Certification (and, for the live view, its Workflows) go in with the elapsed time, the
// lines to print come out. The shell (run_command.cpp) owns the watch, the clock and the terminal.
//
// Plain mode (stderr is not a terminal) prints NVCRE's lines: `[watch] <d>/<v>: <Status> (<e>)`
// when a category's status changes, the InProgress ones again on every heartbeat, or
// `[watch] Waiting for status... (<e>)` before the controller wrote any. The live view (a
// terminal) redraws one line per category instead: status, time spent in it, iteration or
// diagnose round, and the Workflow's groups done of total.
#include <boost/json/value.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::cli {

enum class RunOutcome { Running, Succeeded, Failed };

// Whether `object` (a Certification or WorkloadRun as JSON) has condition `type` with status True.
bool condition_true(const boost::json::value& object, std::string_view type);

// Go's Duration.String() of whole seconds: "0s", "45s", "1m5s", "2h0m3s".
std::string format_elapsed(std::chrono::seconds elapsed);

class WatchProgress {
 public:
  // A new state of the Certification: `[watch]` lines for the categories whose status changed
  // (duplicated domain/variant pairs get a " (MNNVL Enabled|Disabled)" suffix).
  std::vector<std::string> observe(const boost::json::value& certification,
                                   std::chrono::seconds elapsed);

  // The 15 s heartbeat: every InProgress category again, or the waiting line.
  std::vector<std::string> heartbeat(std::chrono::seconds elapsed) const;

  // Succeeded / Failed once the matching condition is True, else Running.
  static RunOutcome outcome(const boost::json::value& certification);
  // `[watch] Certification succeeded. (<e>)` / `[watch] Certification failed. (<e>)`.
  static std::string outcome_line(RunOutcome outcome, std::chrono::seconds elapsed);

  // The live view: one line per category, `workflows` by name (the namespace's Workflows).
  std::vector<std::string> live_lines(const std::map<std::string, boost::json::value>& workflows,
                                      std::chrono::seconds elapsed) const;

  // Whether a category names its Workflow yet (before that the live view fetches nothing).
  bool has_workflows() const;

 private:
  struct Category {
    std::string label;
    std::string status;
    std::string workflow;
    std::optional<std::chrono::seconds> started;   // first seen InProgress
    std::optional<std::chrono::seconds> finished;  // first seen Succeeded / Failed
  };
  std::vector<Category> categories_;
};

// The live view's Workflow part: "iteration 2/3 · groups 3/4 done", "diagnose round 2
// (bisection) · groups 1/2 done", "" before the Workflow has orchestration status.
std::string workflow_progress(const boost::json::value& workflow);

}  // namespace nvcre::cli
