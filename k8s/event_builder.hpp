#pragma once
// events.k8s.io/v1 Events from reconcile EventRecords: reason doubles as
// action; the note is made valid UTF-8 (invalid bytes become U+FFFD) and capped at 1024 bytes,
// cut on a character boundary and suffixed "... [truncated]". Status messages are never cut.
#include "k8s/reconcile_plan.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace nvcre::k8s {

inline constexpr std::size_t kMaxEventNoteBytes = 1024;

std::string sanitize_event_note(std::string_view note);

struct EventSource {
  std::string controller;  // reportingController
  std::string instance;    // reportingInstance (pod / host name)
};

// `sequence` makes the generated name unique per recorder (name = <regarding>.<hex time+seq>).
boost::json::value build_event(const EventRecord& record, Clock::time_point now,
                               const EventSource& source, std::uint64_t sequence);

}  // namespace nvcre::k8s
