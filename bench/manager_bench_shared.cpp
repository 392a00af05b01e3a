#include "bench/manager_bench.hpp"

#include "sim/cluster_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

namespace nvcre::bench {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// ---------------------------------------------------------------------------------------------
// Objects

// "Succeeded"/"Failed" (nvcre kinds) or "Complete"/"Failed" (TrainJob) when that condition is True.
std::string terminal_condition(const json::value& object) {
  const auto* o = object.if_object();
  const auto* status = o == nullptr ? nullptr : o->if_contains("status");
  const auto* conditions = status == nullptr || !status->is_object()
                               ? nullptr
                               : status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return {};
  for (const auto& c : conditions->as_array()) {
    const auto* co = c.if_object();
    if (co == nullptr) continue;
    const auto* s = co->if_contains("status");
    const auto* t = co->if_contains("type");
    if (s == nullptr || t == nullptr || !s->is_string() || !t->is_string() ||
        s->as_string() != "True")
      continue;
    if (t->as_string() == "Succeeded" || t->as_string() == "Failed" ||
        t->as_string() == "Complete") {
      return std::string(t->as_string());
    }
  }
  return {};
}

json::value certification(const std::string& name, const std::vector<std::string>& nodes,
                          int nodes_per_job, std::optional<int> gpus_per_node) {
  json::object options{{"nodesPerJob", nodes_per_job}};
  if (gpus_per_node) options["gpusPerNode"] = *gpus_per_node;
  return certification_on_nodes(name, kNamespace, nodes,
                                {{"domain", "communication"},
                                 {"variant", "nccl-all-reduce"},
                                 {"options", std::move(options)}});
}

std::vector<std::string> slice_nodes(int slice, const Settings& settings, int node_count) {
  std::vector<std::string> nodes;
  for (int i = 0; i < settings.nodes_per_cert; ++i) {
    nodes.push_back(
        sim::profile_node_name((slice * settings.nodes_per_cert + i) % node_count, node_count));
  }
  return nodes;
}

// ---------------------------------------------------------------------------------------------
// The cluster and the bench's clients

std::unique_ptr<nvcre::manager::EmbeddedCluster> start_cluster(
    const std::string& profile, std::chrono::milliseconds trainer_step,
    std::vector<std::string> stall_nodes) {
  nvcre::manager::EmbeddedClusterOptions options;
  options.profile = profile;
  options.stall_nodes = std::move(stall_nodes);
  options.trainer_step = trainer_step;
  options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
  options.namespaces = {kNamespace};
  auto cluster = std::make_unique<nvcre::manager::EmbeddedCluster>(options);
  cluster->start();
  return cluster;
}

std::unique_ptr<k8s::RestClient> bench_client(const nvcre::manager::EmbeddedCluster& cluster) {
  k8s::RestClientOptions options;
  options.user_agent = "nvcre-bench";
  return std::make_unique<k8s::RestClient>(cluster.client_config(), options);
}

std::map<std::string, std::uint64_t> manager_requests(k8s::RestClient& client) {
  std::map<std::string, std::uint64_t> out;
  const json::value stats =
      json::parse(client.request({"GET", "/sim/stats", {{"recent", "0"}}, "", ""}).body);
  if (const auto* agent = stats.at("byUserAgent").as_object().if_contains("nvcre")) {
    for (const auto& [verb, n] : agent->as_object()) out[verb] = n.to_number<std::uint64_t>();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reporting

void print_requests(const RequestsByKind& requests,
                    const std::map<std::string, std::uint64_t>& sim_counted, int certifications) {
  const double n = certifications;
  std::map<std::string, std::map<std::string, std::uint64_t>> by_kind;
  std::map<std::string, std::uint64_t> by_verb;
  std::uint64_t total = 0;
  for (const auto& [key, count] : requests) {
    by_kind[key.first][key.second] += count;
    by_verb[key.second] += count;
    total += count;
  }
  std::printf("manager API requests per Certification: %.1f\n", static_cast<double>(total) / n);
  for (const auto& [kind, verbs] : by_kind) {
    std::printf("  %-22s", kind.c_str());
    for (const auto& [verb, count] : verbs)
      std::printf(" %s %.2f", verb.c_str(), static_cast<double>(count) / n);
    std::printf("\n");
  }
  std::printf("  %-22s", "by verb");
  for (const auto& [verb, count] : by_verb)
    std::printf(" %s %.2f", verb.c_str(), static_cast<double>(count) / n);
  std::uint64_t sim_total = 0;
  for (const auto& [verb, count] : sim_counted) {
    if (verb != "watch" && verb != "list" && verb != "other") sim_total += count;
  }
  std::printf("\n  (kube-sim counted %.1f per Certification)\n",
              static_cast<double>(sim_total) / n);
}

void print_passes(const std::vector<MetricSample>& reconcile_total, int certifications) {
  std::map<std::string, std::pair<double, double>> by_controller;  // all, not succeeded
  double total = 0;
  for (const auto& sample : reconcile_total) {
    const auto controller = sample.labels.find("controller");
    const auto result = sample.labels.find("result");
    if (controller == sample.labels.end()) continue;
    auto& [all, errors] = by_controller[controller->second];
    all += sample.value;
    if (result != sample.labels.end() && result->second != "success") errors += sample.value;
    total += sample.value;
  }
  const double n = certifications;
  std::printf("manager reconcile passes per Certification: %.1f\n", total / n);
  for (const auto& [controller, counts] : by_controller)
    std::printf("  %-22s %.2f (%.2f ended in an error or a crash)\n", controller.c_str(),
                counts.first / n, counts.second / n);
}

bool wait_cascade_done(k8s::RestClient& client, std::chrono::seconds timeout) {
  static const k8s::ResourceRef kBandwidth{"nvcre.nvidia.com", "v1alpha1", "bandwidthmeasurements",
                                           true};
  const auto until = Clock::now() + timeout;
  while (Clock::now() < until) {
    std::size_t left = 0;
    for (const auto* ref : {&kCertifications, &kWorkflows, &kJobs, &kTrainJobs, &kBandwidth})
      left += client.list(*ref, kNamespace).at("items").as_array().size();
    if (left == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

void print_load() {
  double load[3] = {};
  if (::getloadavg(load, 3) == 3)
    std::printf("load average: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
}

}  // namespace nvcre::bench
