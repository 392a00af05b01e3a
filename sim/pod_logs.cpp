#include "sim/pod_logs.hpp"

namespace nvcre::sim {

void PodLogs::write(const std::string& ns, const std::string& name, const std::string& uid,
                    std::string text) {
  std::lock_guard lock(mutex_);
  logs_[{ns, name}] = Log{uid, std::move(text)};
}

std::string PodLogs::read(const std::string& ns, const std::string& name,
                          const std::string& uid) const {
  std::lock_guard lock(mutex_);
  auto it = logs_.find({ns, name});
  return it == logs_.end() || it->second.uid != uid ? std::string() : it->second.text;
}

void PodLogs::keep_only(const std::set<std::string>& live_uids) {
  std::lock_guard lock(mutex_);
  std::erase_if(logs_, [&](const auto& entry) { return !live_uids.contains(entry.second.uid); });
}

std::size_t PodLogs::size() const {
  std::lock_guard lock(mutex_);
  return logs_.size();
}

}  // namespace nvcre::sim
