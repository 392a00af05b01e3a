#pragma once
// What the manager benchmark's phases share: the settings, the objects they create, the clients
// and cluster they drive, and how they print what they measured (see manager_bench.cpp).
#include "manager/embedded/embedded_cluster.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nvcre::bench {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

inline const k8s::ResourceRef kCertifications{"nvcre.nvidia.com", "v1alpha1", "certifications",
                                              true};
inline const k8s::ResourceRef kWorkflows{"nvcre.nvidia.com", "v1alpha1", "workflows", true};
inline const k8s::ResourceRef kJobs{"nvcre.nvidia.com", "v1alpha1", "jobs", true};
inline const k8s::ResourceRef kTrainJobs{"trainer.kubeflow.org", "v1alpha1", "trainjobs", true};
inline constexpr const char* kNamespace = "bench";

struct Settings {
  bool quick = false;
  std::string phase = "all";
  int certifications = 200;
  int concurrency = 4;
  bool lockstep = false;
  int in_flight = 1000;
  std::optional<std::string> cluster;  // per phase when unset (see manager_bench.cpp)
  int nodes_per_cert = 4;
  int nodes_per_job = 2;
  std::optional<int> gpus_per_node;  // the category's gpusPerNode option; per phase when unset
  // kube-sim's default. Its Trainer passes over every stored TrainJob every step/5 (>= 10 ms): at
  // 50 ms and a few hundred finished TrainJobs kube-sim, not the manager, set the pace (measured
  // when the pass still held the API lock). The latency measured starts at TrainJob Complete, so
  // the step only sets throughput.
  int trainer_step_ms = 500;
  bool trainer_step_set = false;  // --trainer-step-ms given (the throughput phase's default is 20)
  int floor_clients = 4;          // throughput: kube-sim floor replay clients
  int isolation_rounds = 3;       // isolation: clean / faulty run pairs
  int relists = 3;                // fleet: forced relists
  std::string manager = NVCRE_MANAGER_BINARY;
  std::vector<std::string> manager_args;
};

void run_latency(const Settings& settings);
void run_rss(const Settings& settings);
void run_throughput(const Settings& settings);
void run_isolation(const Settings& settings);
void run_fleet(const Settings& settings);

double ms(Clock::duration d);

// A Certification in `ns` of one category over the GPU nodes named `nodes`.
inline json::value certification_on_nodes(const std::string& name, const std::string& ns,
                                          const std::vector<std::string>& nodes,
                                          json::object category) {
  json::array node_names;
  for (const auto& n : nodes) node_names.emplace_back(n);
  return json::object{{"apiVersion", "nvcre.nvidia.com/v1alpha1"},
                      {"kind", "Certification"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"spec",
                       {{"target",
                         {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}},
                          {"nodeNames", std::move(node_names)}}},
                        {"categories", json::array{std::move(category)}}}}};
}

// "Succeeded"/"Failed" (nvcre kinds) or "Complete"/"Failed" (TrainJob) when that condition is True;
// "" while none is.
std::string terminal_condition(const json::value& object);

// A Certification of one category (communication/nccl-all-reduce) on `nodes`.
json::value certification(const std::string& name, const std::vector<std::string>& nodes,
                          int nodes_per_job, std::optional<int> gpus_per_node = std::nullopt);

// The nodes of slice `slice`: settings.nodes_per_cert consecutive nodes, wrapping around.
std::vector<std::string> slice_nodes(int slice, const Settings& settings, int node_count);

// kube-sim with the `profile` cluster; the groups with a node of `stall_nodes` run until deleted.
std::unique_ptr<nvcre::manager::EmbeddedCluster> start_cluster(
    const std::string& profile, std::chrono::milliseconds trainer_step,
    std::vector<std::string> stall_nodes = {});

// The bench's own clients carry their own User-Agent so kube-sim's stats tell the manager apart.
std::unique_ptr<k8s::RestClient> bench_client(const nvcre::manager::EmbeddedCluster& cluster);

// The manager's API requests by verb (kube-sim's counters for User-Agent "nvcre").
std::map<std::string, std::uint64_t> manager_requests(k8s::RestClient& client);

// One sample of a metric family: its labels and value.
struct MetricSample {
  std::map<std::string, std::string> labels;
  double value = 0;
};

// The manager's API requests by (kind, verb), from its own metric (ManagerProcess::api_requests).
using RequestsByKind = std::map<std::pair<std::string, std::string>, std::uint64_t>;

// Per Certification: by kind and verb, by verb, and the total; with kube-sim's own count of the
// manager's writes and reads (watch and list excluded) beside it as a cross-check.
void print_requests(const RequestsByKind& requests,
                    const std::map<std::string, std::uint64_t>& sim_counted, int certifications);

// Reconcile passes per Certification by controller (and how many ended in an error or a crash),
// from the manager's nvcre_reconcile_total: the work behind the requests.
void print_passes(const std::vector<MetricSample>& reconcile_total, int certifications);

// Waits (up to `timeout`) until the bench namespace holds no Workflow, Job, TrainJob or
// measurement: the deletion cascade of every finished Certification is over, so the requests
// counted afterwards are each Certification's whole life.
bool wait_cascade_done(k8s::RestClient& client, std::chrono::seconds timeout);

// The nearest-rank percentile `p` (0-100) of `values`; 0 when there are none.
double percentile(std::vector<double> values, double p);

void print_load();

}  // namespace nvcre::bench
