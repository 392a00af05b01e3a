#pragma once
// Waiting for a Certification's verdict: a watch on the one object (field selector on its name)
// run on its own thread and re-established whenever the server ends it or the connection breaks,
// and the waiting loop on the calling thread, which owns the clock: progress lines (WatchProgress),
// the 15 s heartbeat, the live view on a terminal, the deadline and the interrupt.
#include "cli/run_progress.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <iosfwd>
#include <stop_token>
#include <string>

namespace nvcre::cli {

struct WaitRequest {
  std::string ns;
  std::string name;
  std::chrono::nanoseconds timeout{};
  std::stop_token interrupt;  // Ctrl-C: ends the wait as `interrupted`
  bool live = false;          // stderr is a terminal: redraw one line per category
  std::chrono::seconds heartbeat{15};
};

struct WaitResult {
  RunOutcome outcome = RunOutcome::Running;
  bool timed_out = false;
  bool interrupted = false;
  boost::json::value certification;  // the last state seen (null when none arrived)
  std::chrono::seconds elapsed{};
};

// Blocks until the Certification has a verdict, the timeout passes or the interrupt fires.
// Progress goes to `err`. Throws std::runtime_error when the watch cannot be opened at all
// (the Certification's kind is not served, access is denied).
WaitResult wait_for_certification(k8s::RestClient& client, const WaitRequest& request,
                                  std::ostream& err);

}  // namespace nvcre::cli
