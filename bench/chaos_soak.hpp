#pragma once
// The chaos soak (bench/chaos_soak.cpp): what its run, its checker and its leak mode share.
#include "bench/manager_bench.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace nvcre::soak {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

inline constexpr const char* kNamespace = "soak";
inline constexpr const char* kLeaseName = "nvcre-soak";
inline constexpr const char* kSoakAgent = "nvcre-soak";
inline constexpr std::chrono::seconds kLeaseDuration{4};

struct SoakSettings {
  int certifications = 500;
  std::uint64_t seed = 1;
  int kills = 3;      // SIGKILLs of the leader
  int handovers = 2;  // SIGTERMs of the leader: it releases the Lease, the standby takes it
  std::chrono::minutes timeout{60};
  int trainer_step_ms = 100;
  std::string manager = NVCRE_MANAGER_BINARY;
  std::string request_log;  // "" -> $TMPDIR/nvcre_chaos_soak.<pid>.requests.jsonl, removed at end
  // Leak mode (--leak-cycles N): N cycles of creating and deleting `leak_certifications`.
  int leak_cycles = 0;
  int leak_certifications = 200;
};

// The categories the soak mixes, one per Certification in turn.
enum class Mix { Nccl, Training, Diagnose, Dcgm };
const char* to_string(Mix mix);

struct Planned {
  std::string name;
  Mix mix = Mix::Nccl;
  std::vector<std::string> nodes;
  std::string faulty_node;  // Diagnose: the one node it must blame
  json::value object;
};

// N Certifications on disjoint nodes (a diagnose one shares one faulty node with up to seven
// others, each pod asking one GPU, so they never wait on each other); `node_count` and
// `faulty_nodes` are what kube-sim's cluster must hold.
struct Layout {
  std::vector<Planned> certifications;
  int node_count = 0;
  std::vector<std::string> faulty_nodes;
};
Layout plan_layout(int certifications, const std::vector<Mix>& mixes);

// The fault plan of the soak: 5 % 5xx on every verb, 2 % 409 on writes, 1 % 429 with
// Retry-After, 1-20 ms latency, watch drops every 2 s, 10 % forced 410 on watch starts.
std::string fault_plan_yaml(std::uint64_t seed);

// Retries what the fault plan refuses until it is done; AlreadyExists / NotFound count as done.
void create_until_done(k8s::RestClient& client, const k8s::ResourceRef& ref, const json::value& o);
void delete_until_gone(k8s::RestClient& client, const k8s::ResourceRef& ref,
                       const std::string& name);
json::value list_until_answered(k8s::RestClient& client, const k8s::ResourceRef& ref,
                                const std::string& ns);
json::value get_until_answered(k8s::RestClient& client, const k8s::ResourceRef& ref,
                               const std::string& ns, const std::string& name);

// Certifications of a list that have a verdict.
std::size_t count_verdicts(const json::value& list);
// What is left of the run's children in the namespace (Workflows, Jobs, TrainJobs, ConfigMaps and
// Pods with an owner).
std::size_t owned_left(k8s::RestClient& client);

// The checker's result: every figure the soak reports; ok() when every property holds.
struct Findings {
  std::size_t expected_verdicts = 0, reached_expected = 0;
  std::vector<std::string> wrong_verdicts;  // name: what it got instead
  std::size_t children_created = 0;
  std::vector<std::string> duplicate_creates;
  std::vector<std::string> left_after_deletion;
  std::vector<std::string> stuck_finalizers;
  std::vector<std::string> writes_while_not_leader;
  std::size_t lease_tenures = 0;
  bool ok() const {
    return reached_expected == expected_verdicts && duplicate_creates.empty() &&
           left_after_deletion.empty() && stuck_finalizers.empty() &&
           writes_while_not_leader.empty();
  }
};

// Whether each Certification reached what its category expects (read before the deletion).
void check_verdicts(k8s::RestClient& client, const Layout& layout, Findings& findings);
// What is left in the namespace of the children kube-sim counted as created (stats' "creates"),
// and any Certification; being_deleted: it has a deletionTimestamp (a finalizer holds it).
struct Left {
  std::string what;  // "resource name"
  bool being_deleted = false;
};
std::vector<Left> left_of_created(k8s::RestClient& client, const json::value& stats);
// Duplicate creates and objects left, from kube-sim's create counters and the API after the
// deletion (the fault plan lifted).
void check_leftovers(k8s::RestClient& client, const json::value& stats, Findings& findings);
// Writes while not leader, from the request log file.
void check_leadership(const std::string& request_log, Findings& findings);
void print_findings(const Findings& findings);

int run_soak(const SoakSettings& settings);
int run_leak(const SoakSettings& settings);

}  // namespace nvcre::soak
