#include "sim/request_log_reader.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

LoggedRequest parse_line(const std::string& line) {
  const json::value value = json::parse(line);
  const json::object& o = value.as_object();
  LoggedRequest r;
  r.t_us = o.at("t").to_number<std::int64_t>();
  r.method = std::string(o.at("method").as_string());
  r.path = std::string(o.at("path").as_string());
  r.verb = std::string(o.at("verb").as_string());
  r.code = static_cast<int>(o.at("code").to_number<std::int64_t>());
  r.agent = std::string(o.at("agent").as_string());
  r.injected = o.at("injected").as_bool();
  return r;
}

bool succeeded(const LoggedRequest& r) { return r.code >= 200 && r.code < 300; }

}  // namespace

std::vector<LoggedRequest> read_request_log(std::istream& in) {
  std::vector<LoggedRequest> out;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    try {
      out.push_back(parse_line(line));
    } catch (const std::exception& e) {
      throw std::invalid_argument("request log line " + std::to_string(number) +
                                  ": not a request record (t, method, path, verb, code, agent, "
                                  "injected): " +
                                  e.what());
    }
  }
  return out;
}

bool is_write_verb(std::string_view verb) {
  return verb == "create" || verb == "update" || verb == "patch" || verb == "delete" ||
         verb == "deletecollection";
}

bool is_write(const LoggedRequest& r) { return is_write_verb(r.verb); }

bool LeasePath::matches(std::string_view path) const {
  path = path.substr(0, path.find('?'));
  const std::string collection = "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases";
  return path == collection || path == collection + "/" + name;
}

std::vector<LeaseTenure> lease_tenures(const std::vector<LoggedRequest>& requests,
                                       const LeasePath& lease,
                                       std::chrono::microseconds lease_duration) {
  std::vector<const LoggedRequest*> writes;
  for (const auto& r : requests)
    if (is_write(r) && succeeded(r) && lease.matches(r.path)) writes.push_back(&r);
  std::stable_sort(writes.begin(), writes.end(),
                   [](const auto* a, const auto* b) { return a->t_us < b->t_us; });
  std::vector<LeaseTenure> out;
  for (const auto* w : writes) {
    const std::int64_t until = w->t_us + lease_duration.count();
    if (!out.empty() && out.back().agent == w->agent && w->t_us <= out.back().until_us) {
      out.back().until_us = until;  // a renewal in time
      continue;
    }
    if (!out.empty()) out.back().until_us = std::min(out.back().until_us, w->t_us);
    out.push_back(LeaseTenure{w->agent, w->t_us, until});
  }
  return out;
}

std::vector<LoggedRequest> writes_without_lease(const std::vector<LoggedRequest>& requests,
                                                const std::vector<LeaseTenure>& tenures,
                                                const LeasePath& lease,
                                                std::string_view agent_prefix) {
  std::map<std::string, std::vector<const LeaseTenure*>> by_agent;
  for (const auto& t : tenures) by_agent[t.agent].push_back(&t);
  std::vector<LoggedRequest> out;
  for (const auto& r : requests) {
    if (!is_write(r) || lease.matches(r.path) || !r.agent.starts_with(agent_prefix)) continue;
    bool held = false;
    if (auto it = by_agent.find(r.agent); it != by_agent.end()) {
      for (const auto* t : it->second)
        held = held || (t->from_us <= r.t_us && r.t_us <= t->until_us);
    }
    if (!held) out.push_back(r);
  }
  return out;
}

}  // namespace nvcre::sim
