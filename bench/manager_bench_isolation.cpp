// The isolation phase: the throughput run, clean and then beside two faulty Certifications, in
// alternating rounds on fresh clusters: one whose reconcile throws on every attempt
// (nvcre-manager --fault-reconcile-throw) and one whose Workflow's writes each wait 500 ms in
// kube-sim (a fault-plan latency rule for that Workflow's name). The figure is the others'
// throughput beside the faults over their clean throughput.
#include "bench/manager_bench_throughput.hpp"

#include "api/certification.hpp"
#include "api/codec.hpp"
#include "certification/naming.hpp"
#include "jsonkit/paths.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace nvcre::bench {
namespace {

constexpr const char* kThrowing = "iso-throws";
constexpr const char* kSlow = "iso-slow";
constexpr int kSlowWriteMs = 500;

// Every write verb on the Workflow `name` waits kSlowWriteMs.
sim::FaultPlan slow_workflow_writes(const std::string& name) {
  sim::FaultPlan plan;
  plan.seed = 1;
  for (const char* verb : {"create", "update", "patch", "delete"}) {
    sim::VerbFaults faults;
    faults.latency_fixed = std::chrono::milliseconds(kSlowWriteMs);
    faults.latency_target = {"workflows", kNamespace, name};
    plan.verbs[verb] = faults;
  }
  return plan;
}

ThroughputFaults faults_for(const Settings& settings, int node_count) {
  const int slices = std::max(1, node_count / settings.nodes_per_cert);
  const int n = settings.certifications;
  ThroughputFaults faults;
  faults.extra_certifications = {
      certification(kThrowing, slice_nodes(n % slices, settings, node_count),
                    settings.nodes_per_job, settings.gpus_per_node),
      certification(kSlow, slice_nodes((n + 1) % slices, settings, node_count),
                    settings.nodes_per_job, settings.gpus_per_node)};
  faults.manager_args = {"--fault-reconcile-throw",
                         std::string("Certification/") + kNamespace + "/" + kThrowing};
  const auto& category =
      faults.extra_certifications[1].at("spec").at("categories").as_array().front();
  const std::string workflow = certification::workflow_name(
      kSlow, api::decode<api::CertificateCategory>(category, "spec.categories[0]"));
  faults.plan = slow_workflow_writes(workflow);
  faults.awaited = {kSlow};
  std::printf("faults: %s's reconcile throws on every attempt; Workflow %s's writes wait %d ms\n",
              kThrowing, workflow.c_str(), kSlowWriteMs);
  return faults;
}

// The ReconcileError Events recorded on `name` (their counts summed): proof that the injected
// crash happened.
int reconcile_errors(nvcre::manager::EmbeddedCluster& cluster, const std::string& name) {
  auto client = bench_client(cluster);
  const json::value events = client->list({"", "v1", "events", true}, kNamespace);
  int count = 0;
  for (const auto& event : events.at("items").as_array()) {
    if (jsonkit::string_at(event, {"involvedObject", "name"}) != name ||
        jsonkit::string_at(event, {"reason"}) != "ReconcileError")
      continue;
    const json::value* times = jsonkit::value_at(event, {"count"});
    count += times != nullptr && times->is_int64() ? static_cast<int>(times->as_int64()) : 1;
  }
  return count;
}

// The requests kube-sim delayed, every verb.
unsigned long long delayed_requests(nvcre::manager::EmbeddedCluster& cluster) {
  unsigned long long total = 0;
  for (sim::Verb verb : sim::kAllVerbs)
    total += cluster.sim().api().faults().counter("Latency", verb);
  return total;
}

double median(std::vector<double> values) { return percentile(std::move(values), 50); }

}  // namespace

void run_isolation(const Settings& settings) {
  const int n = settings.certifications;
  const std::string profile = throughput_cluster_profile(settings, n + 2);
  const int step_ms = throughput_step_ms(settings);
  std::printf(
      "\n== isolation: %d Certifications created at once, clean and beside 2 faulty ones, %d "
      "rounds, cluster %s, %d nodes each, nodesPerJob %d, trainer step %d ms ==\n",
      n, settings.isolation_rounds, profile.c_str(), settings.nodes_per_cert,
      settings.nodes_per_job, step_ms);
  print_load();
  std::vector<double> clean_rates, faulty_rates;
  for (int round = 1; round <= settings.isolation_rounds; ++round) {
    {
      auto cluster = start_cluster(profile, std::chrono::milliseconds(step_ms));
      std::printf("round %d, clean: ", round);
      const ThroughputRun clean = measure_throughput(*cluster, settings, "isolation-clean");
      print_throughput(clean, n);
      clean_rates.push_back(clean.rate());
    }
    auto cluster = start_cluster(profile, std::chrono::milliseconds(step_ms));
    std::printf("round %d, ", round);
    const ThroughputFaults faults = faults_for(settings, cluster->profile().node_count);
    const ThroughputRun faulty = measure_throughput(*cluster, settings, "isolation-faults", faults);
    std::printf("round %d, beside the faults: ", round);
    print_throughput(faulty, n);
    faulty_rates.push_back(faulty.rate());
    const auto slow = faulty.extra_verdict_s.find(kSlow);
    std::printf(
        "  %s: %d ReconcileError events, verdict %s; %s: %llu writes delayed, verdict %s\n",
        kThrowing, reconcile_errors(*cluster, kThrowing),
        faulty.extra_verdict_s.contains(kThrowing) ? "reached (unexpected)" : "none (expected)",
        kSlow, delayed_requests(*cluster),
        slow == faulty.extra_verdict_s.end()
            ? "none within 60 s after the others"
            : ("after " + std::to_string(slow->second) + " s").c_str());
    std::printf(
        "  (the others' figures stop at their own last verdict: the wait for %s is not in "
        "them)\n",
        kSlow);
  }
  const double clean = median(clean_rates), faulty = median(faulty_rates);
  std::printf(
      "median throughput: clean %.1f Certifications/s, beside the faults %.1f: ratio %.3f "
      "(target >= 0.95)\n",
      clean, faulty, clean > 0 ? faulty / clean : 0.0);
  print_load();
}

}  // namespace nvcre::bench
