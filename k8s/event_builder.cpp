#include "k8s/event_builder.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <vector>

namespace nvcre::k8s {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kTruncatedSuffix = "... [truncated]";

// Length of the valid UTF-8 sequence starting at `at`, or 0 when the bytes there are invalid.
std::size_t valid_sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(at);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
  if (length == 0 || at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  }
  if (length == 2 && lead < 0xC2) return 0;  // overlong
  if (length == 3) {
    unsigned cp = ((lead & 0x0Fu) << 12) | ((byte(at + 1) & 0x3Fu) << 6) | (byte(at + 2) & 0x3Fu);
    if (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;  // overlong or surrogate
  }
  if (length == 4) {
    unsigned cp = ((lead & 0x07u) << 18) | ((byte(at + 1) & 0x3Fu) << 12) |
                  ((byte(at + 2) & 0x3Fu) << 6) | (byte(at + 3) & 0x3Fu);
    if (cp < 0x10000 || cp > 0x10FFFF) return 0;
  }
  return length;
}

}  // namespace

std::string sanitize_event_note(std::string_view note) {
  std::string valid;
  valid.reserve(note.size());
  std::vector<std::size_t> boundaries;  // start offset of each character in `valid`
  for (std::size_t at = 0; at < note.size();) {
    boundaries.push_back(valid.size());
    std::size_t length = valid_sequence_length(note, at);
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
