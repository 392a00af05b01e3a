#include "k8s/watch_stream.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

namespace nvcre::k8s {
namespace json = boost::json;
namespace {

std::string prefix_of(std::string_view line) {
  constexpr std::size_t kMax = 40;
  std::string out(line.substr(0, kMax));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
  if (line.size() > kMax) out += "...";
  return out;
}

bool blank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string_view::npos; }

std::optional<WatchEventType> parse_type(std::string_view t) {
  if (t == "ADDED") return WatchEventType::Added;
  if (t == "MODIFIED") return WatchEventType::Modified;
  if (t == "DELETED") return WatchEventType::Deleted;
  if (t == "BOOKMARK") return WatchEventType::Bookmark;
  if (t == "ERROR") return WatchEventType::Error;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "UNKNOWN";
}

std::string WatchEvent::resource_version() const {
  return jsonkit::string_at(object, {"metadata", "resourceVersion"});
}

WatchEvent decode_watch_event(std::string_view line) {
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec) throw WatchDecodeError("not JSON (" + ec.message() + "): \"" + prefix_of(line) + "\"");
  auto* o = v.if_object();
  if (!o) throw WatchDecodeError("event is not a JSON object: \"" + prefix_of(line) + "\"");
  const auto* t = o->if_contains("type");
  if (!t || !t->is_string())
    throw WatchDecodeError("event has no string \"type\": \"" + prefix_of(line) + "\"");
  auto type = parse_type(t->as_string());
  if (!type) throw WatchDecodeError("unknown event type \"" + prefix_of(t->as_string()) + "\"");
  auto* obj = o->if_contains("object");
  if (!obj || !obj->is_object())
    throw WatchDecodeError(std::string(to_string(*type)) + " event has no \"object\" object");
  WatchEvent event;
  event.type = *type;
  event.object = std::move(*obj);  // the parsed line is dropped: take its object, not a copy
  if (*type == WatchEventType::Error) {
    int code = 500;
    // From the event's object: `obj` was moved from.
    if (const auto* c = event.object.as_object().if_contains("code"); c && c->is_int64())
      code = static_cast<int>(c->as_int64());
    event.error = api_error_from_status(code, event.object);
  }
  return event;
}

void WatchDecoder::decode_line(std::string_view line, std::vector<WatchEvent>& out) {
  ++lines_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (blank(line)) return;
  try {
    out.push_back(decode_watch_event(line));
  } catch (const WatchDecodeError& e) {
    throw WatchDecodeError("watch stream line " + std::to_string(lines_) + " (byte " +
                           std::to_string(offset_) + "): " + e.what());
  }
}

std::vector<WatchEvent> WatchDecoder::feed(std::string_view bytes) {
  std::vector<WatchEvent> out;
  while (!bytes.empty()) {
    auto nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      if (pending_.size() + bytes.size() > max_line_) {
        throw WatchDecodeError("watch stream line " + std::to_string(lines_ + 1) + " (byte " +
                               std::to_string(offset_) + "): longer than " +
                               std::to_string(max_line_) + " bytes");
      }
      pending_.append(bytes);
      break;
    }
    std::size_t length = pending_.size() + nl;
    if (pending_.empty()) {
      decode_line(bytes.substr(0, nl), out);
    } else {
      pending_.append(bytes.substr(0, nl));
      decode_line(pending_, out);
      pending_.clear();
    }
    offset_ += length + 1;
    bytes.remove_prefix(nl + 1);
  }
  return out;
}

std::vector<WatchEvent> WatchDecoder::finish() {
  std::vector<WatchEvent> out;
  if (!pending_.empty()) {
    std::string rest = std::move(pending_);
    pending_.clear();
    if (!blank(rest)) decode_line(rest, out);
  }
  return out;
}

}  // namespace nvcre::k8s
