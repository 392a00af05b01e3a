#pragma once
// Container logs of kube-sim's pods, kept beside the store as a kubelet keeps them beside the API
// server: a pod object carries no log (every watch of pods would otherwise carry every log line),
// GET pods/<name>/log reads it from here (sim/log_query.hpp filters it), and it goes with its pod.
// Each line keeps the time it was written, so a log grows over the pod's life and sinceTime /
// timestamps=true answer as a kubelet does. Thread-safe.
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvcre::sim {

struct LogLine {
  std::chrono::system_clock::time_point time;
  std::string text;  // without its newline
};

// `text` split at '\n' into lines stamped `time` (a final newline ends the last line; a text
// without one still makes a line of what follows the last newline).
std::vector<LogLine> split_log_lines(std::string_view text,
                                     std::chrono::system_clock::time_point time);

class PodLogs {
 public:
  // Appends to the log of container `container` of the pod (ns, name) whose uid is `uid`; a pod
  // of the same name created again starts over. Returns false and keeps nothing when that log
  // was replaced (replace): a replayed capture is not mixed with what the simulation writes.
  bool append(const std::string& ns, const std::string& name, const std::string& uid,
              const std::string& container, std::vector<LogLine> lines);
  // Replaces that container's log; later appends are ignored.
  void replace(const std::string& ns, const std::string& name, const std::string& uid,
               const std::string& container, std::vector<LogLine> lines);
  // The container's lines in the order written; empty when it has none.
  std::vector<LogLine> lines(const std::string& ns, const std::string& name, const std::string& uid,
                             const std::string& container) const;
  // Forgets the logs of pods whose uid is not in `live_uids` (they were deleted).
  void keep_only(const std::set<std::string>& live_uids);
  std::size_t size() const;  // pods with a log

 private:
  struct ContainerLog {
    std::vector<LogLine> lines;
    bool replaced = false;
  };
  struct Log {
    std::string uid;
    std::map<std::string, ContainerLog> containers;
  };
  Log& log_of(const std::string& ns, const std::string& name, const std::string& uid);

  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Log> logs_;  // by (namespace, name)
};

}  // namespace nvcre::sim
