#include "sim/trainer_logs.hpp"

#include "jsonkit/paths.hpp"
#include "sim/cluster_catalog.hpp"
#include "sim/cluster_profile.hpp"
#include "sim/megatron_log.hpp"
#include "sim/nccl_tests_log.hpp"
#include "sim/store.hpp"
#include "sim/trainer_pods.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace nvcre::sim::trainer {

namespace json = boost::json;
using jsonkit::find_array;
using jsonkit::find_object;
using jsonkit::find_string;

namespace {

// NCCL lines of at most this many worker hosts go to the reporting pod's log (a real launcher
// log carries every rank's; past a few hosts they only repeat).
constexpr std::size_t kMaxHostsLogged = 16;
// At most this many "#  Rank ..." device lines.
constexpr int kMaxRankLines = 512;

// What NCCL prints as "Using network ..." for the platform's fabric.
std::string network_name(const std::string& platform_name) {
  if (platform_name == "aws") return "AWS Libfabric";
  if (platform_name == "gcp") return "gIB";
  return "IB";
}

std::string architecture_of(const std::string& product) {
  try {
    return sim_architecture(product);
  } catch (const std::invalid_argument&) {
    return {};  // a GPU kube-sim does not simulate: the lowest figures below
  }
}

double tflops_per_gpu(const std::string& product) {
  const std::string arch = architecture_of(product);
  if (arch == "gb200" || arch == "gb300") return 520.4;
  if (arch == "b200") return 480.2;
  if (arch == "h100" || arch == "h200") return 412.3;
  if (arch == "a100") return 162.5;
  return 88.1;
}

// "<host>:<pid>:<tid> [<device>] ", as NCCL tags its lines; the host is the pod's hostname.
std::string process_tag(const std::string& host, int index) {
  return host + ":" + std::to_string(200 + index) + ":" + std::to_string(200 + index) + " [0] ";
}

std::vector<std::string> nccl_init_lines(const PodLogContext& c, const std::string& host,
                                         int index) {
  const std::string p = process_tag(host, index) + "NCCL INFO ";
  const int gpus = std::max(1, c.gpus);
  return {p + "Bootstrap: Using eth0:10.0.0." + std::to_string(4 + index % 250) + "<0>",
          p + "cudaDriverVersion 12080",
          p + "NCCL version 2.27.7+cuda12.9",
          p + "NET/Plugin: Loaded net plugin " + network_name(c.platform) + " (v10)",
          p + "Using network " + network_name(c.platform),
          p + "comm rank " + std::to_string(index * gpus) + " nRanks " +
              std::to_string(c.world_size * gpus) + " nNodes " + std::to_string(c.world_size) +
              " - Init COMPLETE"};
}

void add_at(LogScript& script, double at, const std::vector<std::string>& lines) {
  for (const auto& line : lines) script.lines.push_back({at, line});
}

std::vector<std::string> startup_lines(const PodLogContext& c) {
  std::vector<std::string> lines{"kube-sim: pod " + c.pod + " started on node " + c.node + " (" +
                                 std::to_string(c.gpus) + "x " + c.product + ", " + c.platform +
                                 ")"};
  const auto init = nccl_init_lines(c, c.pod, c.index);
  lines.insert(lines.end(), init.begin(), init.end());
  return lines;
}

void add_nccl_tests(LogScript& script, const PodLogContext& c, const NcclTestArgs& args) {
  const int ranks = std::max(1, c.world_size * std::max(1, c.gpus));
  for (std::size_t w = 0; w < c.workers.size() && w < kMaxHostsLogged; ++w)
    add_at(script, 0, nccl_init_lines(c, c.workers[w].pod, static_cast<int>(w)));
  add_at(script, 0, nccl_header_lines(args));
  const int gpus = std::max(1, c.gpus);
  for (int rank = 0; rank < ranks && rank < kMaxRankLines; ++rank) {
    const auto w = static_cast<std::size_t>(rank / gpus);
    const std::string host = w < c.workers.size() ? c.workers[w].pod : c.pod;
    char line[256];
    std::snprintf(line, sizeof line,
                  "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%04x:%02x:00] %s", rank,
                  200 + static_cast<int>(w), host.c_str(), rank % gpus, 0, 0x18 + rank % gpus,
                  c.product.c_str());
    script.lines.push_back({0, line});
  }
  const std::string host0 = c.workers.empty() ? c.pod : c.workers.front().pod;
  const std::string p = process_tag(host0, 0) + "NCCL INFO ";
  const std::string net = "NET/" + network_name(c.platform) + "/0";
  add_at(script, 0, nccl_table_header_lines());
  add_at(script, 0,
         {p + "Channel 00/0 : 1[0] -> 0[0] [receive] via " + net,
          p + "Channel 00/0 : 0[0] -> 1[0] [send] via " + net,
          p + "Connected all rings, use ring PXN 0 GDR 1"});

  double cap = bus_bandwidth(c.product);
  if (c.traits.bus_bandwidth_cap) cap = std::min(cap, *c.traits.bus_bandwidth_cap);
  const auto rows = nccl_rows(args, ranks, cap);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    script.lines.push_back({static_cast<double>(i + 1) / static_cast<double>(rows.size() + 1),
                            format_nccl_row(rows[i], args)});
    if (i + 1 == std::min<std::size_t>(3, rows.size())) script.stall_after = script.lines.size();
  }
  if (rows.empty()) script.stall_after = script.lines.size();
  add_at(script, 1,
         {p + "comm 0x7f2a4c000000 rank 0 nranks " + std::to_string(ranks) +
          " cudaDev 0 busId 18000 - Destroy COMPLETE"});
  add_at(script, 1, nccl_footer_lines(args, rows));
}

std::map<std::string, std::string> literal_env(const json::object& container) {
  std::map<std::string, std::string> env;
  if (const auto* list = find_array(container, {"env"}))
    for (const auto& item : *list)
      if (const auto* value = find_string(item.if_object(), "value"))
        env[jsonkit::string_of(item.if_object(), "name")] = std::string(*value);
  return env;
}

}  // namespace

GroupTraits group_traits(const std::vector<const json::value*>& nodes) {
  GroupTraits traits;
  for (const auto* node : nodes) {
    if (node == nullptr) continue;
    const auto* annotations = find_object(node->as_object(), {"metadata", "annotations"});
    if (const auto* cap = find_string(annotations, kNodeBusBandwidthAnnotation)) {
      double gbps = 0;
      auto [end, error] = std::from_chars(cap->data(), cap->data() + cap->size(), gbps);
      if (error == std::errc() && end == cap->data() + cap->size() && gbps > 0)
        traits.bus_bandwidth_cap = std::min(gbps, traits.bus_bandwidth_cap.value_or(gbps));
    }
    if (const auto* stall = find_string(annotations, kNodeStallAnnotation);
        stall && *stall == "true")
      traits.stalled = true;
  }
  return traits;
}

std::string main_container(const json::value& pod) {
  const auto* containers = find_array(pod.as_object(), {"spec", "containers"});
  if (containers == nullptr || containers->empty()) return std::string(kWorkerJob);
  for (const auto& container : *containers)
    if (const auto* name = find_string(container.if_object(), "name"); name && *name == kWorkerJob)
      return std::string(*name);
  return jsonkit::string_of(containers->front().if_object(), "name");
}

double bus_bandwidth(const std::string& product) {
  const std::string arch = architecture_of(product);
  if (arch == "gb200" || arch == "gb300") return 712.4;
  if (arch == "b200") return 418.7;
  if (arch == "h100" || arch == "h200") return 371.9;
  if (arch == "a100") return 188.3;
  return 96.5;
}

PodLogContext log_context(const json::value& pod, const json::value* node, int world_size,
                          bool has_launcher) {
  PodLogContext c;
  c.pod = meta_string(pod, "name");
  c.node = pod_node(pod);
  c.index = static_cast<int>(jsonkit::integer_of(
      pod.at("metadata").at("labels").as_object().if_contains(kCompletionIndexLabel), 0));
  c.world_size = world_size;
  const std::string job = pod_label(pod, kReplicatedJobNameLabel);
  // Without a launcher, worker 0 reports; a training run's last worker prints the iterations too,
  // as Megatron's last pipeline rank does (LogProfiles read steps from it).
  c.launcher = has_launcher && job == kLauncherJob;
  c.reports_results = has_launcher
                          ? job == kLauncherJob
                          : job == kWorkerJob && (c.index == 0 || c.index + 1 == world_size);
  const std::string container_name = main_container(pod);
  if (const auto* containers = find_array(pod.as_object(), {"spec", "containers"}))
    for (const auto& container : *containers) {
      if (!container.is_object() ||
          jsonkit::string_of(container.if_object(), "name") != container_name)
        continue;
      for (const char* key : {"command", "args"})
        if (const auto* words = find_array(container.as_object(), {key}))
          for (const auto& word : *words)
            if (word.is_string()) c.command.emplace_back(word.as_string());
      c.env = literal_env(container.as_object());
      break;
    }
  if (node != nullptr) {
    c.platform = sim_platform_of(*node);
    const auto* labels = find_object(node->as_object(), {"metadata", "labels"});
    const auto* product = find_string(labels, "nvidia.com/gpu.product");
    c.product = product != nullptr ? std::string(*product) : std::string();
    const auto* allocatable = find_object(node->as_object(), {"status", "allocatable"});
    c.gpus = static_cast<int>(
        jsonkit::integer_of(allocatable ? allocatable->if_contains("nvidia.com/gpu") : nullptr, 0));
  }
  return c;
}

LogScript run_script(const PodLogContext& c) {
  LogScript script;
  add_at(script, 0, startup_lines(c));
  if (!c.reports_results) return script;
  if (auto nccl = parse_nccl_test_args(c.command)) {
    if (c.index == 0 || c.launcher) add_nccl_tests(script, c, *nccl);  // one table, as nccl-tests
    return script;
  }
  MegatronRun run;
  run.world_size = std::max(1, c.world_size * std::max(1, c.gpus));
  run.tensor_parallel = std::clamp(c.gpus, 1, 8);
  run.tflops_per_gpu = tflops_per_gpu(c.product);
  LogScript training = megatron_script(parse_megatron_args(c.command, c.env), run);
  const std::size_t offset = script.lines.size();
  script.lines.insert(script.lines.end(), training.lines.begin(), training.lines.end());
  if (training.stall_after != static_cast<std::size_t>(-1))
    script.stall_after = offset + training.stall_after;
  return script;
}

std::vector<std::string> failure_lines(const PodLogContext& c, const std::string& failure) {
  return {process_tag(c.pod, c.index) + failure,
          "kube-sim: container exited with code 1 on node " + c.node};
}

}  // namespace nvcre::sim::trainer
