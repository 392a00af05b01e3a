#include "k8s/event_builder.hpp"
#include "jsonkit/utf8.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <vector>

namespace nvcre::k8s {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kTruncatedSuffix = "... [truncated]";

}  // namespace

std::string sanitize_event_note(std::string_view note) {
  std::string valid;
  valid.reserve(note.size());
  std::vector<std::size_t> boundaries;  // start offset of each character in `valid`
  for (std::size_t at = 0; at < note.size();) {
    boundaries.push_back(valid.size());
    std::size_t length = jsonkit::utf8_sequence_length(note, at);
    if (length == 0) {
      valid += kReplacement;
      ++at;
    } else {
      valid.append(note.substr(at, length));
      at += length;
    }
  }
  if (valid.size() <= kMaxEventNoteBytes) return valid;
  std::size_t budget = kMaxEventNoteBytes - kTruncatedSuffix.size();
  std::size_t cut = 0;
  for (std::size_t boundary : boundaries) {
    if (boundary > budget) break;
    cut = boundary;
  }
  valid.resize(cut);
  return valid + std::string(kTruncatedSuffix);
}

boost::json::value build_event(const EventRecord& record, Clock::time_point now,
                               const EventSource& source, std::uint64_t sequence) {
  char suffix[40];
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  std::snprintf(suffix, sizeof suffix, ".%llx%04llx", static_cast<unsigned long long>(nanos),
                static_cast<unsigned long long>(sequence & 0xFFFF));
  boost::json::object regarding{{"apiVersion", record.regarding.api_version},
                                {"kind", record.regarding.kind},
                                {"name", record.regarding.name}};
  if (!record.regarding.ns.empty()) regarding["namespace"] = record.regarding.ns;
  if (!record.uid.empty()) regarding["uid"] = record.uid;
  return boost::json::object{
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", record.regarding.name + suffix},
        {"namespace", record.regarding.ns.empty() ? std::string("default") : record.regarding.ns}}},
      {"eventTime", format_rfc3339_micro(now)},
      {"reportingController", source.controller},
      {"reportingInstance", source.instance},
      {"action", record.reason},
      {"reason", record.reason},
      {"type", record.type},
      {"note", sanitize_event_note(record.note)},
      {"regarding", std::move(regarding)},
  };
}

}  // namespace nvcre::k8s
