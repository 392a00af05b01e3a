// Watch: ?watch=1&resourceVersion=N&allowWatchBookmarks=true&timeoutSeconds=T.
#include "sim/api_server.hpp"

#include "sim/query_params.hpp"
#include "sim/selectors.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

std::vector<std::string> present_watch_lines(
    const std::vector<std::string>& lines,
    const std::function<json::value(const json::value&)>& present) {
  std::vector<std::string> out;
  out.reserve(lines.size());
  for (const auto& line : lines) {
    const json::value event = json::parse(line);
    const auto& type = event.at("type").as_string();
    out.push_back(type == "ERROR" ? line : watch_line(type, present(event.at("object"))));
  }
  return out;
}

std::shared_ptr<WatchStream> ApiServer::open_watch(const HttpRequest& request,
                                                   const ResourceInfo& info,
                                                   const std::string& ns) {
  auto param = [&](const char* key) {
    auto it = request.query.find(key);
    return it == request.query.end() ? std::string() : it->second;
  };
  auto stream = std::make_shared<WatchStream>();
  stream->generation = watch_generation_;
  stream->type = info.type;
  stream->ns = ns;
  stream->filter = make_filter(param("labelSelector"), param("fieldSelector"));
  stream->bookmarks = query_flag(request.query, "allowWatchBookmarks");
  int timeout = options_.default_watch_timeout_seconds;
  if (auto t = param("timeoutSeconds"); !t.empty()) {
    try {
      timeout = std::stoi(t);
    } catch (const std::exception&) {
      throw bad_request("invalid timeoutSeconds: " + t);
    }
  }
  const auto now = std::chrono::steady_clock::now();
  stream->deadline = now + std::chrono::seconds(timeout);
  stream->next_bookmark = now + options_.bookmark_interval;
  const std::string rv = param("resourceVersion");
  // sendInitialEvents (a watch-list) asks for the current state whatever the resourceVersion and
  // marks its end with a bookmark; without it, only an unset or "0" resourceVersion does.
  const bool watch_list = request.query.contains("sendInitialEvents");
  if (watch_list ? query_flag(request.query, "sendInitialEvents") : rv.empty() || rv == "0") {
    auto list = store_.list(info.type, ns, stream->filter);
    for (const auto& item : list.items) stream->initial.push_back(watch_line("ADDED", item));
    stream->last_rv = list.resource_version;
    if (watch_list && stream->bookmarks)
      stream->initial.push_back(watch_line(
          "BOOKMARK",
          json::object{
              {"kind", info.type.kind},
              {"apiVersion", info.type.api_version()},
              {"metadata", json::object{{"resourceVersion", std::to_string(stream->last_rv)},
                                        {"annotations",
                                         json::object{{"k8s.io/initial-events-end", "true"}}}}}}));
    return stream;
  }
  if (watch_list) {  // no initial events: changes after the current state
    stream->last_rv = store_.resource_version();
    if (rv.empty() || rv == "0") return stream;
  }
  try {
    std::size_t used = 0;
    stream->last_rv = std::stoull(rv, &used);
    if (used != rv.size()) throw std::invalid_argument(rv);
  } catch (const std::exception&) {
    throw bad_request("invalid resource version: " + rv);
  }
  try {
    store_.events_since(stream->last_rv, info.type, ns);
  } catch (const ApiError& error) {
    stream->initial.push_back(watch_line("ERROR", error.to_status()));
    stream->closed = true;
  }
  return stream;
}

std::vector<std::string> ApiServer::poll_watch(WatchStream& stream) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> lines;
  if (stream.closed) return lines;
  // Ended by DELETE /sim/watches: a clean end (as at its timeout), so the client resumes from its
  // last resourceVersion, which that request compacted away.
  if (stream.generation != watch_generation_) {
    stream.closed = true;
    return lines;
  }
  if (stream.drop_at && std::chrono::steady_clock::now() >= *stream.drop_at) {
    stream.closed = true;
    stream.dropped = true;
    faults_.count("WatchDrop", Verb::Watch);
    return lines;
  }
  const std::uint64_t snapshot = store_.resource_version();
  std::vector<WatchEvent> events;
  try {
    events = store_.events_since(stream.last_rv, stream.type, stream.ns);
  } catch (const ApiError& error) {
    lines.push_back(watch_line("ERROR", error.to_status()));
    stream.closed = true;
    return lines;
  }
  for (const auto& event : events) {
    stream.last_rv = event.resource_version;
    if (stream.filter && !stream.filter(*event.object)) continue;
    lines.push_back(watch_line(to_string(event.type), event.object_json()));
  }
  const auto now = std::chrono::steady_clock::now();
  if (stream.bookmarks && now >= stream.next_bookmark) {
    stream.last_rv = std::max(stream.last_rv, snapshot);
    lines.push_back(watch_line(
        "BOOKMARK", json::object{{"kind", stream.type.kind},
                                 {"apiVersion", stream.type.api_version()},
                                 {"metadata", json::object{{"resourceVersion",
                                                            std::to_string(stream.last_rv)}}}}));
    stream.next_bookmark = now + options_.bookmark_interval;
  }
  if (now >= stream.deadline) stream.closed = true;
  if (stream.present) lines = present_watch_lines(lines, stream.present);
  return lines;
}

}  // namespace nvcre::sim
