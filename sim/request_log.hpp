#pragma once
// kube-sim's request log: the last N requests (method, path, verb, code, latency) in a bounded
// ring, plus counters that never roll over: requests per verb and code, requests per client
// (User-Agent) and verb so a test can tell which client wrote, create attempts per
// (group/resource, namespace, name) so a test can tell whether a client created an object twice,
// and requests refused by access control per user so a test can tell whether a role was enough.
// Served as `GET /sim/stats` (`?recent=N` limits the log part, default 100). Thread-safe.
// A ring forgets; a checker that must see every request of a long run (the chaos soak: who wrote
// while not holding the Lease) asks for the full log as JSON lines in a file (write_to).
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace nvcre::sim {

struct RequestRecord {
  std::string method;
  std::string path;  // with the query string
  std::string verb;  // get, list, ..., watch; "other" for discovery and the like
  int code = 0;
  std::chrono::microseconds latency{0};  // handling time plus injected delay
  bool injected = false;                 // the answer was an injected fault
  std::string user_agent{};              // the client's User-Agent header ("" when none)
  // When the request arrived: the store acted then; an injected delay only holds the answer back.
  std::chrono::system_clock::time_point received{};
};

class RequestLog {
 public:
  explicit RequestLog(std::size_t capacity = 1000);

  void record(RequestRecord record);
  // A create attempt for (group/resource, namespace, name); `created` when it answered 201.
  void record_create(const std::string& resource, const std::string& ns, const std::string& name,
                     bool created);
  // A request refused with 403 to `user`; one refused with 401 (no or an unknown token).
  void record_denied(const std::string& user);
  void record_unauthenticated();
  void reset();
  // From now on every record is also appended to `path` as one JSON object per line:
  // {"t": microseconds since the epoch of its arrival, "method", "path", "verb", "code",
  //  "agent", "injected", "latencyMs"}. Throws std::runtime_error when the file cannot be opened.
  void write_to(const std::string& path);
  void flush();  // what write_to has buffered, so a reader sees every record so far

  std::uint64_t requests(const std::string& verb, int code) const;
  // Requests of one client (User-Agent) with one verb, whatever their answer.
  std::uint64_t requests_by(const std::string& user_agent, const std::string& verb) const;
  std::uint64_t create_attempts(const std::string& resource, const std::string& ns,
                                const std::string& name) const;
  std::uint64_t denied(const std::string& user) const;

  // {"requests": {"<verb>": {"<code>": n}}, "total": n, "byUserAgent": {"<agent>": {"<verb>": n}},
  //  "creates": [{"resource", "namespace", "name", "attempts", "created"}],
  //  "duplicateCreates": [...the entries with attempts > 1...],
  //  "deniedByUser": {"<user>": n}, "denied": n (403s), "unauthenticated": n (401s),
  //  "log": [{"method", "path", "verb", "code", "latencyMs", "injected"}] (newest last)}
  boost::json::value stats(std::size_t recent = 100) const;

 private:
  struct CreateCount {
    std::uint64_t attempts = 0;
    std::uint64_t created = 0;
  };
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::deque<RequestRecord> ring_;
  std::uint64_t total_ = 0;
  std::map<std::string, std::map<int, std::uint64_t>> by_verb_code_;
  std::map<std::string, std::map<std::string, std::uint64_t>> by_agent_verb_;
  std::map<std::tuple<std::string, std::string, std::string>, CreateCount> creates_;
  std::map<std::string, std::uint64_t> denied_by_user_;
  std::uint64_t unauthenticated_ = 0;
  std::ofstream file_;
};

}  // namespace nvcre::sim
