#include "sim/request_log.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::sim {

namespace json = boost::json;

RequestLog::RequestLog(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

void RequestLog::record(RequestRecord record) {
  std::lock_guard lock(mutex_);
  ++total_;
  ++by_verb_code_[record.verb][record.code];
  ++by_agent_verb_[record.user_agent][record.verb];
  if (file_.is_open()) {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(record.received.time_since_epoch())
            .count();
    file_ << json::serialize(
                 json::object{{"t", micros},
                              {"method", record.method},
                              {"path", record.path},
                              {"verb", record.verb},
                              {"code", record.code},
                              {"agent", record.user_agent},
                              {"injected", record.injected},
                              {"latencyMs", static_cast<double>(record.latency.count()) / 1000.0}})
          << '\n';
  }
  ring_.push_back(std::move(record));
  while (ring_.size() > capacity_) ring_.pop_front();
}

void RequestLog::write_to(const std::string& path) {
  std::lock_guard lock(mutex_);
  file_.close();
  file_.open(path, std::ios::out | std::ios::trunc);
  if (!file_) throw std::runtime_error("cannot write the request log to " + path);
}

void RequestLog::flush() {
  std::lock_guard lock(mutex_);
  if (file_.is_open()) file_.flush();
}

void RequestLog::record_create(const std::string& resource, const std::string& ns,
                               const std::string& name, bool created) {
  std::lock_guard lock(mutex_);
  auto& count = creates_[{resource, ns, name}];
  ++count.attempts;
  if (created) ++count.created;
}

void RequestLog::record_denied(const std::string& user) {
  std::lock_guard lock(mutex_);
  ++denied_by_user_[user];
}

void RequestLog::record_unauthenticated() {
  std::lock_guard lock(mutex_);
  ++unauthenticated_;
}

std::uint64_t RequestLog::denied(const std::string& user) const {
  std::lock_guard lock(mutex_);
  auto it = denied_by_user_.find(user);
  return it == denied_by_user_.end() ? 0 : it->second;
}

void RequestLog::reset() {
  std::lock_guard lock(mutex_);
  ring_.clear();
  total_ = 0;
  by_verb_code_.clear();
  by_agent_verb_.clear();
  creates_.clear();
  denied_by_user_.clear();
  unauthenticated_ = 0;
}

std::uint64_t RequestLog::requests(const std::string& verb, int code) const {
  std::lock_guard lock(mutex_);
  auto v = by_verb_code_.find(verb);
  if (v == by_verb_code_.end()) return 0;
  auto c = v->second.find(code);
  return c == v->second.end() ? 0 : c->second;
}

std::uint64_t RequestLog::requests_by(const std::string& user_agent,
                                      const std::string& verb) const {
  std::lock_guard lock(mutex_);
  auto a = by_agent_verb_.find(user_agent);
  if (a == by_agent_verb_.end()) return 0;
  auto v = a->second.find(verb);
  return v == a->second.end() ? 0 : v->second;
}

std::uint64_t RequestLog::create_attempts(const std::string& resource, const std::string& ns,
                                          const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = creates_.find({resource, ns, name});
  return it == creates_.end() ? 0 : it->second.attempts;
}

json::value RequestLog::stats(std::size_t recent) const {
  std::lock_guard lock(mutex_);
  json::object requests;
  for (const auto& [verb, codes] : by_verb_code_) {
    json::object per_code;
    for (const auto& [code, n] : codes) per_code[std::to_string(code)] = n;
    requests[verb] = std::move(per_code);
  }
  json::object by_agent;
  for (const auto& [agent, verbs] : by_agent_verb_) {
    json::object per_verb;
    for (const auto& [verb, n] : verbs) per_verb[verb] = n;
    by_agent[agent] = std::move(per_verb);
  }
  json::array creates, duplicates;
  for (const auto& [key, count] : creates_) {
    json::object entry{{"resource", std::get<0>(key)},
                       {"namespace", std::get<1>(key)},
                       {"name", std::get<2>(key)},
                       {"attempts", count.attempts},
                       {"created", count.created}};
    if (count.attempts > 1) duplicates.push_back(entry);
    creates.push_back(std::move(entry));
  }
  json::object denied_by_user;
  std::uint64_t denied = 0;
  for (const auto& [user, n] : denied_by_user_) {
    denied_by_user[user] = n;
    denied += n;
  }
  json::array log;
  const std::size_t skip = ring_.size() > recent ? ring_.size() - recent : 0;
  for (std::size_t i = skip; i < ring_.size(); ++i) {
    const auto& r = ring_[i];
    log.push_back(json::object{{"method", r.method},
                               {"path", r.path},
                               {"verb", r.verb},
                               {"code", r.code},
                               {"latencyMs", static_cast<double>(r.latency.count()) / 1000.0},
                               {"injected", r.injected}});
  }
  return json::object{{"requests", std::move(requests)},
                      {"total", total_},
                      {"byUserAgent", std::move(by_agent)},
                      {"creates", std::move(creates)},
                      {"duplicateCreates", std::move(duplicates)},
                      {"deniedByUser", std::move(denied_by_user)},
                      {"denied", denied},
                      {"unauthenticated", unauthenticated_},
                      {"log", std::move(log)}};
}

}  // namespace nvcre::sim
