#pragma once
// Incremental decoding of a watch response body: newline-delimited JSON events
// {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": {...}}. Pure: bytes in, events out, no
// I/O, so chunk boundaries can be tested exactly. The transport (RestClient::watch) feeds whatever
// the socket delivered; a line split across chunks is buffered until its newline arrives.
#include "k8s/api_error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

std::string_view to_string(WatchEventType type);

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  boost::json::value object;      // the object; for ERROR the Status
  std::optional<ApiError> error;  // ERROR only: the Status decoded (code 410 / Expired = relist)

  // metadata.resourceVersion of the object ("" for ERROR or when absent).
  std::string resource_version() const;
  bool expired() const { return error && is_gone(*error); }
};

// A line that is not a watch event. what() names the line number, byte offset and the problem, with
// at most a short prefix of the line (watch bodies may carry Secrets: never the whole line).
struct WatchDecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class WatchDecoder {
 public:
  // Lines longer than this (no newline yet) are rejected instead of growing without bound.
  explicit WatchDecoder(std::size_t max_line_bytes = 64u << 20) : max_line_(max_line_bytes) {}

  // Appends bytes; returns the events of every line completed by them, in order. Blank lines and
  // "\r\n" endings are accepted. Throws WatchDecodeError on a malformed line (the decoder is then
  // unusable: the stream is corrupt).
  std::vector<WatchEvent> feed(std::string_view bytes);

  // End of body: a final line without newline is decoded (servers always end lines, but a proxy
  // may not); returns its event if any. Whitespace-only leftovers are ignored.
  std::vector<WatchEvent> finish();

  std::size_t buffered() const { return pending_.size(); }
  std::size_t lines() const { return lines_; }

 private:
  void decode_line(std::string_view line, std::vector<WatchEvent>& out);

  std::size_t max_line_;
  std::string pending_;
  std::size_t offset_ = 0;  // stream offset of pending_[0]
  std::size_t lines_ = 0;
};

// Decodes one event line (without its newline). Throws WatchDecodeError.
WatchEvent decode_watch_event(std::string_view line);

}  // namespace nvcre::k8s
