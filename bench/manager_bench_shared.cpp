#include "bench/manager_bench.hpp"

#include "sim/cluster_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nvcre::bench {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// ---------------------------------------------------------------------------------------------
// Objects

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
    const std::string& profile, std::chrono::milliseconds trainer_step) {
  nvcre::manager::EmbeddedClusterOptions options;
  options.profile = profile;
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

void print_requests(const std::map<std::string, std::uint64_t>& requests, int certifications) {
  std::uint64_t total = 0;
  std::printf("manager API requests per Certification:");
  for (const auto& [verb, n] : requests) {
    if (verb == "watch" || verb == "list" || verb == "other") continue;
    total += n;
    std::printf(" %s %.1f", verb.c_str(), static_cast<double>(n) / certifications);
  }
  std::printf("; total %.1f\n", static_cast<double>(total) / certifications);
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
