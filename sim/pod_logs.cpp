#include "sim/pod_logs.hpp"

namespace nvcre::sim {

std::vector<LogLine> split_log_lines(std::string_view text,
                                     std::chrono::system_clock::time_point time) {
  std::vector<LogLine> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    if (end == std::string_view::npos) {
      out.push_back({time, std::string(text.substr(start))});
      break;
    }
    out.push_back({time, std::string(text.substr(start, end - start))});
    start = end + 1;
  }
  return out;
}

PodLogs::Log& PodLogs::log_of(const std::string& ns, const std::string& name,
                              const std::string& uid) {
  auto& log = logs_[{ns, name}];
  if (log.uid != uid) log = Log{uid, {}};
  return log;
}

bool PodLogs::append(const std::string& ns, const std::string& name, const std::string& uid,
                     const std::string& container, std::vector<LogLine> lines) {
  std::lock_guard lock(mutex_);
  auto& log = log_of(ns, name, uid).containers[container];
  if (log.replaced) return false;
  log.lines.insert(log.lines.end(), std::make_move_iterator(lines.begin()),
                   std::make_move_iterator(lines.end()));
  return true;
}

void PodLogs::replace(const std::string& ns, const std::string& name, const std::string& uid,
                      const std::string& container, std::vector<LogLine> lines) {
  std::lock_guard lock(mutex_);
  log_of(ns, name, uid).containers[container] = ContainerLog{std::move(lines), true};
}

std::vector<LogLine> PodLogs::lines(const std::string& ns, const std::string& name,
                                    const std::string& uid, const std::string& container) const {
  std::lock_guard lock(mutex_);
  auto it = logs_.find({ns, name});
  if (it == logs_.end() || it->second.uid != uid) return {};
  auto log = it->second.containers.find(container);
  return log == it->second.containers.end() ? std::vector<LogLine>{} : log->second.lines;
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
