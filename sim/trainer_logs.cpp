#include "sim/trainer_logs.hpp"

#include "jsonkit/paths.hpp"
#include "sim/cluster_catalog.hpp"
#include "sim/store.hpp"
#include "sim/trainer_pods.hpp"

#include <boost/json.hpp>

#include <cstdio>

namespace nvcre::sim::trainer {

namespace json = boost::json;
using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;

namespace {

bool mentions_nccl_tests(const json::value& pod) {
  const auto* containers = find_array(pod.as_object(), {"spec", "containers"});
  if (containers == nullptr) return false;
  const std::string text = json::serialize(*containers);
  return text.find("_perf") != std::string::npos || text.find("nccl-tests") != std::string::npos;
}

// What NCCL prints as "Using network ..." for the platform's fabric.
std::string network_name(const std::string& platform_name) {
  if (platform_name == "aws") return "AWS Libfabric";
  if (platform_name == "gcp") return "gIB";
  return "IB";
}

// A bus bandwidth in the right range for the part (GB/s, all-reduce across nodes).
double bus_bandwidth(const std::string& product) {
  std::string arch;
  try {
    arch = sim_architecture(product);
  } catch (const std::invalid_argument&) {
    // a GPU kube-sim does not simulate: the lowest figure below
  }
  if (arch == "gb200" || arch == "gb300") return 712.4;
  if (arch == "b200") return 418.7;
  if (arch == "h100" || arch == "h200") return 371.9;
  if (arch == "a100") return 188.3;
  return 96.5;
}

// "<host>:<pid>:<tid> [<device>] ", as NCCL tags its lines.
std::string process_tag(const PodLogContext& c) {
  return c.node + ":" + std::to_string(200 + c.index) + ":" + std::to_string(200 + c.index) +
         " [0] ";
}

std::string nccl_prefix(const PodLogContext& c) { return process_tag(c) + "NCCL INFO "; }

std::string nccl_table(const PodLogContext& c) {
  const int ranks = std::max(1, c.world_size * std::max(1, c.gpus));
  const double bus = bus_bandwidth(c.product);
  const double alg = ranks > 1 ? bus * ranks / (2.0 * (ranks - 1)) : bus;
  std::string out =
      "#\n#                                                              out-of-place              "
      "         in-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)\n";
  char row[256];
  for (unsigned long long size = 1ULL << 30; size <= 1ULL << 33; size <<= 1) {
    const double time_us = static_cast<double>(size) / (alg * 1e3);
    std::snprintf(row, sizeof row,
                  "%12llu  %12llu     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  "
                  "%6.2f  %6.2f      0\n",
                  size, size / 4, time_us, alg, bus, time_us, alg, bus);
    out += row;
  }
  std::snprintf(row, sizeof row,
                "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %.2f\n#\n", bus);
  return out + row;
}

std::string training_lines() {
  std::string out;
  char line[256];
  for (int iteration = 10; iteration <= 50; iteration += 10) {
    std::snprintf(
        line, sizeof line,
        " iteration %8d/%8d | consumed samples: %10d | elapsed time per iteration (ms): %.1f | "
        "global batch size: %5d | lm loss: %.6E | number of skipped iterations: 0 |\n",
        iteration, 50, iteration * 256, 1843.2 + iteration / 10.0, 256, 9.4 - iteration * 0.05);
    out += line;
  }
  return out + "[after training is done]\n";
}

}  // namespace

PodLogContext log_context(const json::value& pod, const json::value* node, int world_size,
                          bool has_launcher) {
  PodLogContext c;
  c.pod = meta_string(pod, "name");
  c.node = pod_node(pod);
  c.index = static_cast<int>(
      json_int(pod.at("metadata").at("labels").as_object().if_contains(kCompletionIndexLabel), 0));
  c.world_size = world_size;
  const std::string job = pod_label(pod, kReplicatedJobNameLabel);
  c.reports_results = has_launcher ? job == kLauncherJob : job == kWorkerJob && c.index == 0;
  c.nccl_test = mentions_nccl_tests(pod);
  if (node != nullptr) {
    c.platform = sim_platform_of(*node);
    const auto* labels = find_object(node->as_object(), {"metadata", "labels"});
    const auto* product = find_string(labels, "nvidia.com/gpu.product");
    c.product = product != nullptr ? std::string(*product) : std::string();
    const auto* allocatable = find_object(node->as_object(), {"status", "allocatable"});
    c.gpus = static_cast<int>(
        json_int(allocatable ? allocatable->if_contains("nvidia.com/gpu") : nullptr, 0));
  }
  return c;
}

std::string startup_log(const PodLogContext& c) {
  const std::string p = nccl_prefix(c);
  return "kube-sim: pod " + c.pod + " started on node " + c.node + " (" + std::to_string(c.gpus) +
         "x " + c.product + ", " + c.platform + ")\n" + p + "Bootstrap: Using eth0\n" + p +
         "cudaDriverVersion 12080\n" + p + "NCCL version 2.27.7+cuda12.9\n" + p + "Using network " +
         network_name(c.platform) + "\n" + p + "comm rank " +
         std::to_string(c.index * std::max(1, c.gpus)) + " nRanks " +
         std::to_string(c.world_size * std::max(1, c.gpus)) + " nNodes " +
         std::to_string(c.world_size) + " - Init COMPLETE\n";
}

std::string completion_log(const PodLogContext& c) {
  std::string out = startup_log(c);
  if (c.reports_results) out += c.nccl_test ? nccl_table(c) : training_lines();
  return out;
}

std::string failure_log(const PodLogContext& c, const std::string& failure) {
  return startup_log(c) + process_tag(c) + failure + "\n" +
         "kube-sim: container exited with code 1 on node " + c.node + "\n";
}

}  // namespace nvcre::sim::trainer
