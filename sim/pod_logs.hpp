#pragma once
// Container logs of kube-sim's pods, kept beside the store as a kubelet keeps them beside the API
// server: a pod object carries no log (every watch of pods would otherwise carry every log line),
// GET pods/<name>/log reads it from here, and it goes with its pod. Thread-safe.
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace nvcre::sim {

class PodLogs {
 public:
  // Replaces the log of the pod (ns, name) whose uid is `uid`.
  void write(const std::string& ns, const std::string& name, const std::string& uid,
             std::string text);
  // The log of the pod (ns, name) with this uid; "" when it has none (a pod of the same name
  // created again starts without its predecessor's log).
  std::string read(const std::string& ns, const std::string& name, const std::string& uid) const;
  // Forgets the logs of pods whose uid is not in `live_uids` (they were deleted).
  void keep_only(const std::set<std::string>& live_uids);
  std::size_t size() const;

 private:
  struct Log {
    std::string uid;
    std::string text;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Log> logs_;  // by (namespace, name)
};

}  // namespace nvcre::sim
