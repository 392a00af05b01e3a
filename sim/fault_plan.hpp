#pragma once
// kube-sim's fault injection: a plan of per-verb error rates (500, 503, 409, 429 + Retry-After),
// latency (fixed + uniform jitter), watch drops and forced 410s on watch start, decided by a
// seeded RNG so a run with the same plan and the same request sequence injects the same faults.
// Every injected fault is counted per kind and verb. Loaded by `kube-sim --fault-plan <file>`,
// read and replaced at run time through `GET` / `PUT /sim/faults` (YAML or JSON body):
//
//   seed: 42                      # 0 or absent: random
//   verbs:                        # get, list, create, update, patch, delete, watch, or "*"
//     create:                     #   ("*" applies to every verb not listed)
//       errors:                   # tried in order against one uniform draw per request
//       - {code: 503, rate: 0.25}
//       - {code: 429, rate: 0.10, retryAfterSeconds: 2}
//       - {code: 403, rate: 1.0, resource: workflows}  # only requests that match resource,
//                                                      # namespace and name (each optional)
//       latency: {fixedMs: 20, jitterMs: 30}   # delay = fixed + uniform[0, jitter]
//     patch:
//       latency: {fixedMs: 500, resource: workflows, name: wf-1}  # only requests that match
//                                                                 # (resource, namespace, name)
//     watch:
//       forceGoneRate: 0.5        # share of watch starts answered with an ERROR 410 Expired event
//       dropEverySeconds: 10      # every watch connection is cut (no terminating chunk) after 10 s
//
// Only resource requests (/api/<v>/..., /apis/<g>/<v>/...) are subject to faults; discovery,
// /version, /healthz and /sim/* never are.
#include "sim/api_error.hpp"

#include <boost/json/value.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

enum class Verb { Get, List, Create, Update, Patch, Delete, Watch };
inline constexpr std::array<Verb, 7> kAllVerbs{
    Verb::Get, Verb::List, Verb::Create, Verb::Update, Verb::Patch, Verb::Delete, Verb::Watch};
const char* to_string(Verb verb);
std::optional<Verb> parse_verb(std::string_view text);

// What a resource request addresses (the API server's RequestInfo, reduced).
struct RequestTarget {
  Verb verb = Verb::Get;
  std::string group;
  std::string resource;
  std::string ns;
  std::string name;
  std::string subresource;
};
// nullopt for anything that is not a resource request (discovery, /version, /sim/..., ...).
std::optional<RequestTarget> classify_request(const std::string& method, const std::string& path,
                                              const std::map<std::string, std::string>& query);

// Which requests a rule applies to ("" = any): the plural resource, namespace and name.
struct TargetFilter {
  std::string resource{};
  std::string ns{};
  std::string name{};

  bool any() const { return resource.empty() && ns.empty() && name.empty(); }
  bool applies_to(const RequestTarget& target) const {
    return (resource.empty() || resource == target.resource) && (ns.empty() || ns == target.ns) &&
           (name.empty() || name == target.name);
  }
};

struct ErrorRule {
  int code = 503;   // any 4xx or 5xx
  double rate = 0;  // probability in [0, 1]
  int retry_after_seconds =
      0;  // 429 (default 1) and optionally 503: details.retryAfterSeconds + Retry-After
  TargetFilter target{};

  bool applies_to(const RequestTarget& request) const { return target.applies_to(request); }
};

struct VerbFaults {
  std::vector<ErrorRule> errors;
  std::chrono::milliseconds latency_fixed{0};
  std::chrono::milliseconds latency_jitter{0};
  TargetFilter latency_target{};  // the requests the latency applies to
  double watch_gone_rate = 0;     // watch only
  int watch_drop_seconds = 0;     // watch only; 0 = never
};

struct FaultPlan {
  std::uint64_t seed = 0;
  std::map<std::string, VerbFaults> verbs;  // verb name or "*"

  bool empty() const { return verbs.empty(); }
  const VerbFaults* for_verb(Verb verb) const;
};

// Parses the YAML (or JSON) form above; throws std::invalid_argument naming the bad field.
FaultPlan parse_fault_plan(std::string_view text);
boost::json::value to_json(const FaultPlan& plan);

struct FaultDecision {
  std::optional<ApiError> error;             // answer with this instead of serving the request
  std::chrono::milliseconds delay{0};        // before the response (or the watch's first bytes)
  bool watch_gone = false;                   // answer the watch with ERROR 410 Expired
  std::chrono::seconds watch_drop_after{0};  // 0: no drop
};

class FaultInjector {
 public:
  // Replaces the plan and reseeds the RNG (seed 0: random). Counters are kept.
  void set_plan(FaultPlan plan);
  FaultPlan plan() const;
  void reset_counters();

  // One decision per request; counts what it injects. Deterministic for a fixed seed and a fixed
  // sequence of calls.
  FaultDecision decide(const RequestTarget& target);
  // Counts a fault that happens later than the decision (a watch drop when it fires).
  void count(const std::string& kind, Verb verb);
  std::uint64_t counter(const std::string& kind, Verb verb) const;
  std::uint64_t total() const;

  // {"plan": {...}, "counters": {"<kind>": {"<verb>": n}}, "total": n}. Kinds: the Status reason
  // of an injected error (InternalError, ServiceUnavailable, Conflict, TooManyRequests), Latency,
  // WatchGone, WatchDrop.
  boost::json::value report() const;

 private:
  mutable std::mutex mutex_;
  FaultPlan plan_;
  std::mt19937_64 rng_{0};
  std::map<std::string, std::map<std::string, std::uint64_t>> counters_;
};

// The Status error a rule injects for `target` (reason, message, retryAfterSeconds).
ApiError injected_error(const ErrorRule& rule, const RequestTarget& target);

}  // namespace nvcre::sim
