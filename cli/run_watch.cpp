#include "cli/run_watch.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <thread>

namespace nvcre::cli {
namespace json = boost::json;

namespace {

const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications", true};
const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};

// What the watch thread hands to the waiting loop.
struct Mailbox {
  std::mutex mutex;
  std::condition_variable_any ready;
  std::deque<json::value> states;
  std::optional<std::string> fatal;
};

// The watch thread: re-opens the watch until stopped. Starting from "now" each time replays the
// current object as ADDED, so a reconnect never misses the verdict written while it was away.
void watch_loop(k8s::RestClient& client, const WaitRequest& request, Mailbox& mailbox,
                std::stop_token stop) {
  std::mutex sleep_mutex;
  std::condition_variable_any sleeper;
  while (!stop.stop_requested()) {
    k8s::WatchOptions options;
    options.field_selector = "metadata.name=" + request.name;
    options.timeout_seconds = 300;
    options.stop = stop;
    try {
      client.watch(kCertifications, request.ns, options, [&](k8s::WatchEvent& event) {
        if (event.type == k8s::WatchEventType::Bookmark || event.type == k8s::WatchEventType::Error)
          return k8s::WatchControl::Continue;
        std::lock_guard lock(mailbox.mutex);
        mailbox.states.push_back(std::move(event.object));
        mailbox.ready.notify_all();
        return k8s::WatchControl::Continue;
      });
      continue;  // the server ended the watch: open the next one
    } catch (const k8s::ApiError& error) {
      if (error.code == 401 || error.code == 403 || error.code == 404) {
        std::lock_guard lock(mailbox.mutex);
        mailbox.fatal = "watch certification \"" + request.name + "\": " + error.what();
        mailbox.ready.notify_all();
        return;
      }
    } catch (const std::exception&) {
      // A broken connection or a corrupt stream: the next watch starts afresh.
    }
    std::unique_lock lock(sleep_mutex);
    sleeper.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
  }
}

// The live view: redraws its block of lines in place.
class LiveView {
 public:
  explicit LiveView(std::ostream& err) : err_(err) {}
  void draw(const std::vector<std::string>& lines) {
    if (drawn_ > 0) err_ << "\x1b[" << drawn_ << "F";
    for (const auto& line : lines) err_ << "\x1b[2K" << line << "\n";
    for (std::size_t i = lines.size(); i < drawn_; ++i) err_ << "\x1b[2K\n";
    drawn_ = std::max(drawn_, lines.size());
    err_.flush();
  }

 private:
  std::ostream& err_;
  std::size_t drawn_ = 0;
};

std::map<std::string, json::value> workflows_by_name(k8s::RestClient& client,
                                                     const std::string& ns) {
  std::map<std::string, json::value> out;
  try {
    json::value list = client.list(kWorkflows, ns);
    if (const auto* items = list.as_object().if_contains("items"); items && items->is_array())
      for (auto& item : items->as_array())
        if (std::string name = jsonkit::string_at(item, {"metadata", "name"}); !name.empty())
          out.emplace(std::move(name), std::move(item));
  } catch (const std::exception&) {
    // The live view shows less this round; the verdict comes from the watch.
  }
  return out;
}

void print(std::ostream& err, const std::vector<std::string>& lines) {
  for (const auto& line : lines) err << line << "\n";
  err.flush();
}

}  // namespace

WaitResult wait_for_certification(k8s::RestClient& client, const WaitRequest& request,
                                  std::ostream& err) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + request.timeout;
  const auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start);
  };
  err << "[watch] Watching certification progress...\n" << std::flush;
  Mailbox mailbox;
  std::jthread watcher(
      [&](std::stop_token stop) { watch_loop(client, request, mailbox, std::move(stop)); });
  WatchProgress progress;
  LiveView view(err);
  WaitResult result;
  auto next_heartbeat = start + request.heartbeat;
  auto next_redraw = start;
  while (true) {
    auto wake = std::min(deadline, request.live ? next_redraw : next_heartbeat);
    std::deque<json::value> states;
    {
      std::unique_lock lock(mailbox.mutex);
      mailbox.ready.wait_until(lock, request.interrupt, wake,
                               [&] { return !mailbox.states.empty() || mailbox.fatal; });
      if (mailbox.fatal) throw std::runtime_error(*mailbox.fatal);
      states.swap(mailbox.states);
    }
    result.elapsed = elapsed();
    if (request.interrupt.stop_requested()) {
      result.interrupted = true;
      break;
    }
    for (auto& state : states) {
      auto lines = progress.observe(state, result.elapsed);
      if (!request.live) print(err, lines);
      result.outcome = WatchProgress::outcome(state);
      result.certification = std::move(state);
      if (result.outcome != RunOutcome::Running) break;
    }
    const auto now = Clock::now();
    if (request.live && (now >= next_redraw || result.outcome != RunOutcome::Running)) {
      const auto workflows = progress.has_workflows() ? workflows_by_name(client, request.ns)
                                                      : std::map<std::string, json::value>{};
      view.draw(progress.live_lines(workflows, result.elapsed));
      next_redraw = now + std::chrono::seconds(1);
    }
    if (result.outcome != RunOutcome::Running) {
      err << WatchProgress::outcome_line(result.outcome, result.elapsed) << "\n" << std::flush;
      break;
    }
    if (now >= deadline) {
      result.timed_out = true;
      break;
    }
    if (!request.live && now >= next_heartbeat) {
      print(err, progress.heartbeat(result.elapsed));
      next_heartbeat += request.heartbeat;
    }
  }
  watcher.request_stop();
  return result;
}

}  // namespace nvcre::cli
