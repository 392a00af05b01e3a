#pragma once
// Reading kube-sim's request log back (RequestLog::write_to's JSON lines) and the checks a chaos
// run asks of it: who held the leader-election Lease when, and which writes a manager sent while
// it did not. Pure: the log is an input; nothing here reads a clock.
#include <chrono>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

struct LoggedRequest {
  std::int64_t t_us = 0;  // arrival, microseconds since the epoch
  std::string method;
  std::string path;  // with the query string
  std::string verb;
  int code = 0;
  std::string agent;  // User-Agent
  bool injected = false;
};

// Every line of `in`; throws std::invalid_argument naming the line number and what is wrong with
// it when a line is not one of the log's JSON objects.
std::vector<LoggedRequest> read_request_log(std::istream& in);

// Whether a Kubernetes verb changes state: create, update, patch, delete, deletecollection.
bool is_write_verb(std::string_view verb);
bool is_write(const LoggedRequest& request);  // is_write_verb(request.verb)

// The Lease's collection (POST creates it) and object (PUT/PATCH renew or take it) paths.
struct LeasePath {
  std::string ns;
  std::string name;
  bool matches(std::string_view path) const;  // either path, the query string ignored
};

// One manager's time as the leader: from its first successful write of the Lease (a create or an
// update that took it) to its last successful renewal plus the lease duration, cut short where
// another client's write of the Lease succeeded (it took the Lease, so this one no longer held it).
struct LeaseTenure {
  std::string agent;
  std::int64_t from_us = 0;
  std::int64_t until_us = 0;
};

// The tenures in time order, from the successful (2xx) Lease writes of `requests`.
std::vector<LeaseTenure> lease_tenures(const std::vector<LoggedRequest>& requests,
                                       const LeasePath& lease,
                                       std::chrono::microseconds lease_duration);

// The writes (other than of the Lease itself) sent by clients whose User-Agent starts with
// `agent_prefix` that arrived outside every tenure of their own User-Agent, whatever the answer:
// a write refused by the server was still sent by a manager that should not have sent it.
std::vector<LoggedRequest> writes_without_lease(const std::vector<LoggedRequest>& requests,
                                                const std::vector<LeaseTenure>& tenures,
                                                const LeasePath& lease,
                                                std::string_view agent_prefix);

}  // namespace nvcre::sim
