#include "sim/cluster_profile.hpp"

#include "sim/cluster_catalog.hpp"

#include "api/validation.hpp"

#include <boost/json.hpp>

#include <array>
#include <charconv>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace nvcre::sim {

namespace json = boost::json;
namespace {

// The fleet size nvcre_manager_bench --phase fleet runs (10,000 nodes, 2,000 Certifications in
// flight).
constexpr int kMaxNodes = 10000;
constexpr int kNodesPerNvlinkDomain = 18;  // GB200/GB300 NVL72: 18 compute trays of 4 GPUs

struct InstanceType {
  std::string_view platform;
  std::string_view architecture;
  std::string_view name;
};

constexpr std::array<InstanceType, 26> kInstanceTypes{{
    {"aws", "a100", "p4d.24xlarge"},
    {"aws", "b200", "p6-b200.48xlarge"},
    {"aws", "gb200", "p6e-gb200.36xlarge"},
    {"aws", "gb300", "p6e-gb300.36xlarge"},
    {"aws", "h100", "p5.48xlarge"},
    {"aws", "h200", "p5e.48xlarge"},
    {"aws", "l40s", "g6e.48xlarge"},
    {"gcp", "a100", "a2-ultragpu-8g"},
    {"gcp", "b200", "a4-highgpu-8g"},
    {"gcp", "gb200", "a4x-highgpu-4g"},
    {"gcp", "gb300", "a4x-maxgpu-4g"},
    {"gcp", "h100", "a3-megagpu-8g"},
    {"gcp", "h200", "a3-ultragpu-8g"},
    {"gcp", "rtxpro6000", "g4-standard-384"},
    {"azure", "a100", "Standard_ND96amsr_A100_v4"},
    {"azure", "gb200", "Standard_ND128isr_NDR_GB200_v6"},
    {"azure", "gb300", "Standard_ND128isr_GB300_v6"},
    {"azure", "h100", "Standard_ND96isr_H100_v5"},
    {"azure", "h200", "Standard_ND96isr_H200_v5"},
    {"oci", "a100", "BM.GPU.A100-v2.8"},
    {"oci", "b200", "BM.GPU.B200.8"},
    {"oci", "gb200", "BM.GPU.GB200.4"},
    {"oci", "gb300", "BM.GPU.GB300.4"},
    {"oci", "h100", "BM.GPU.H100.8"},
    {"oci", "h200", "BM.GPU.H200.8"},
    {"oci", "l40s", "BM.GPU.L40S.4"},
}};

std::string instance_type(std::string_view platform_name, std::string_view architecture, int gpus) {
  for (const auto& row : kInstanceTypes)
    if (row.platform == platform_name && row.architecture == architecture)
      return std::string(row.name);
  return std::string(architecture) + "-" + std::to_string(gpus) + "gpu";  // on-prem and neoclouds
}

std::string two_digits(int value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%02d", value);
  return buffer;
}

// The platform's provider ID scheme and layout with a per-node last segment, so every node is
// distinct.
std::string node_provider_id(std::string_view platform_name, const std::string& node, int index) {
  std::string id(sim_platform(platform_name).provider_id);
  if (id.empty()) return id;  // forge: recognised by its site label
  char unique[64];
  if (platform_name == "aws") {
    std::snprintf(unique, sizeof unique, "i-0%016x", 0x5e0000u + static_cast<unsigned>(index));
  } else if (platform_name == "nscale") {
    std::snprintf(unique, sizeof unique, "00000000-0000-4000-8000-%012d", index);
  } else if (platform_name == "oci") {
    std::snprintf(unique, sizeof unique, "nvcresim%04d", index);
  } else {
    std::snprintf(unique, sizeof unique, "%s", node.c_str());
  }
  const char separator = platform_name == "oci" ? '.' : '/';
  return id.substr(0, id.rfind(separator) + 1) + unique;
}

// The platform's RDMA NIC resources as its device plugins advertise them.
void add_nic_resources(json::object& allocatable, std::string_view platform_name,
                       std::string_view architecture, int mlnx_per_node) {
  const bool nvl = architecture == "gb200" || architecture == "gb300";
  if (platform_name == "aws") {
    int efa = architecture == "h100" || architecture == "h200" ? 32
              : architecture == "b200"                         ? 8
                                                               : 4;
    if (architecture == "l40s") efa = 0;
    if (efa > 0) allocatable["vpc.amazonaws.com/efa"] = std::to_string(efa);
  } else if (platform_name == "gcp") {
    const bool tcpxo = architecture == "h100";  // A3 Mega: eight GPUDirect-TCPXO networks
    const int networks = nvl ? 4 : 8;
    for (int i = 0; i < networks; ++i)
      allocatable["networking.gke.io.networks/" +
                  (tcpxo ? "vpc" + std::to_string(i + 1) : "rdma-" + std::to_string(i))] = "1";
  } else if (platform_name == "azure" || platform_name == "oci") {
    if (mlnx_per_node > 0) allocatable["nvidia.com/mlnxnics"] = std::to_string(mlnx_per_node);
  } else if (platform_name == "nscale") {
    allocatable["nscale.com/rdmashare"] = "1000";  // rdma shared device plugin, hca max
  } else if (mlnx_per_node > 0) {
    allocatable["rdma/ib"] =
        std::to_string(mlnx_per_node);  // on-prem style SR-IOV / IB device plugin
  }
}

json::object node_labels(const ClusterProfile& profile, const SimGpuModel& model,
                         const std::string& name, int index, int gpus) {
  json::object labels{{"kubernetes.io/hostname", name},
                      {"kubernetes.io/os", "linux"},
                      {"kubernetes.io/arch", model.grace ? "arm64" : "amd64"},
                      {"node.kubernetes.io/instance-type",
                       instance_type(profile.platform, model.architecture, gpus)},
                      {"nvidia.com/gpu.present", "true"},
                      {"nvidia.com/gpu.product", model.product},
                      {"nvidia.com/gpu.count", std::to_string(gpus)},
                      {"nvidia.com/gpu.memory", model.memory_mib},
                      {"nvidia.com/gpu.family", model.family}};
  const SimPlatform& platform = sim_platform(profile.platform);
  if (!platform.region.empty()) {
    labels["topology.kubernetes.io/region"] = platform.region;
    labels["topology.kubernetes.io/zone"] = platform.zone;
  }
  const int domain = index / kNodesPerNvlinkDomain;
  if (model.grace) {
    // GFD's clique label: <NVLink cluster UUID>.<clique id>, one per NVL72 rack.
    labels["nvidia.com/gpu.clique"] =
        "5d1e0c4a-0000-4000-8000-0000000000" + two_digits(domain) + ".1";
  }
  if (profile.platform == "gcp")
    labels["cloud.google.com/gce-topology-block"] = "block-" + two_digits(domain);
  if (profile.platform == "nscale") {
    // NKS names each node's NVLink (accelerator) domain: the NVL72 rack on Grace systems, the node
    // itself on HGX ones. Its renders group GB200/GB300 jobs by it (there is no GFD clique label
    // on NKS); the value's spelling is ours, one value per domain is what matters.
    labels["topology.nks.nscale.com/accelerator-domain"] =
        model.grace ? "nvl72-" + two_digits(domain) : "node-" + two_digits(index);
  }
  return labels;
}

json::value node_status(const ClusterProfile& profile, const SimGpuModel& model, int index,
                        const std::string& name, const std::string& timestamp) {
  json::object allocatable{{"cpu", model.grace ? "144" : "192"},
                           {"memory", model.grace ? "880Gi" : "2000Gi"},
                           {"ephemeral-storage", "3500Gi"},
                           {"hugepages-1Gi", "0"},
                           {"hugepages-2Mi", "0"},
                           {"pods", "110"},
                           {"nvidia.com/gpu", std::to_string(model.gpus_per_node)}};
  add_nic_resources(allocatable, profile.platform, profile.architecture, model.nics_per_node);
  auto condition = [&](const char* type, const char* status, const char* reason,
                       const char* message) {
    return json::object{{"type", type},
                        {"status", status},
                        {"lastHeartbeatTime", timestamp},
                        {"lastTransitionTime", timestamp},
                        {"reason", reason},
                        {"message", message}};
  };
  const std::string ip =
      "10.0." + std::to_string(index / 250) + "." + std::to_string(index % 250 + 4);
  return json::object{
      {"capacity", allocatable},
      {"allocatable", allocatable},
      {"conditions",
       json::array{condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                             "kubelet has sufficient memory available"),
                   condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                             "kubelet has no disk pressure"),
                   condition("PIDPressure", "False", "KubeletHasSufficientPID",
                             "kubelet has sufficient PID available"),
                   condition("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
      {"addresses", json::array{json::object{{"type", "InternalIP"}, {"address", ip}},
                                json::object{{"type", "Hostname"}, {"address", name}}}},
      {"daemonEndpoints", json::object{{"kubeletEndpoint", json::object{{"Port", 10250}}}}},
      {"nodeInfo",
       json::object{{"architecture", model.grace ? "arm64" : "amd64"},
                    {"containerRuntimeVersion", "containerd://1.7.24"},
                    {"kernelVersion", "6.8.0-1021-nvidia"},
                    {"kubeProxyVersion", api::kImitatedKubernetesVersion},
                    {"kubeletVersion", api::kImitatedKubernetesVersion},
                    {"operatingSystem", "linux"},
                    {"osImage", "Ubuntu 22.04.5 LTS"},
                    {"machineID", "sim" + two_digits(index)},
                    {"systemUUID", "00000000-0000-4000-8000-0000000000" + two_digits(index % 100)},
                    {"bootID", "sim-boot-" + name}}}};
}

json::value build_node(const ClusterProfile& profile, int index, const std::string& timestamp,
                       json::object sim_annotations) {
  const SimGpuModel model = sim_gpu_model(profile.architecture, profile.platform);
  const SimPlatform& platform = sim_platform(profile.platform);
  const std::string name = profile_node_name(index, profile.node_count);
  // Labels in key order, then the platform's marker label.
  std::map<std::string, json::value> sorted;
  for (auto& [key, value] : node_labels(profile, model, name, index, model.gpus_per_node))
    sorted[std::string(key)] = value;
  json::object labels;
  for (auto& [key, value] : sorted) labels[key] = std::move(value);
  if (!platform.marker_label.empty()) labels[platform.marker_label] = platform.marker_value;
  json::value node = json::object{{"apiVersion", "v1"}, {"kind", "Node"}};
  auto& object = node.as_object();
  object["metadata"] = json::object{{"name", name}, {"labels", std::move(labels)}};
  auto& metadata = object["metadata"].as_object();
  json::object annotations{{"node.alpha.kubernetes.io/ttl", "0"},
                           {"volumes.kubernetes.io/controller-managed-attach-detach", "true"}};
  for (auto& [key, value] : sim_annotations) annotations[key] = std::move(value);
  metadata["annotations"] = std::move(annotations);
  const std::string provider_id = node_provider_id(profile.platform, name, index);
  json::object spec;
  if (!provider_id.empty()) spec["providerID"] = provider_id;
  object["spec"] = std::move(spec);
  object["status"] = node_status(profile, model, index, name, timestamp);
  return node;
}

}  // namespace

ClusterProfile parse_cluster_profile(std::string_view spec) {
  const std::string usage =
      "cluster profile \"" + std::string(spec) + "\" must be PLATFORM:GPU:NODES, e.g. aws:h100:16";
  const auto first = spec.find(':');
  const auto second = first == std::string_view::npos ? first : spec.find(':', first + 1);
  if (second == std::string_view::npos || spec.find(':', second + 1) != std::string_view::npos)
    throw std::invalid_argument(usage);
  ClusterProfile profile;
  profile.platform = std::string(spec.substr(0, first));
  try {
    sim_platform(profile.platform);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(usage + "; " + error.what());
  }
  const auto gpu = spec.substr(first + 1, second - first - 1);
  if (gpu.empty()) throw std::invalid_argument(usage);
  try {
    profile.architecture = sim_architecture(gpu);
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(usage + "; " + error.what());
  }
  const auto count = spec.substr(second + 1);
  auto [end, error] =
      std::from_chars(count.data(), count.data() + count.size(), profile.node_count);
  if (error != std::errc() || end != count.data() + count.size() || profile.node_count < 1 ||
      profile.node_count > kMaxNodes)
    throw std::invalid_argument(usage + "; NODES must be 1.." + std::to_string(kMaxNodes));
  return profile;
}

FaultyNode parse_faulty_node(std::string_view flag) {
  const auto equals = flag.find('=');
  FaultyNode faulty{std::string(flag.substr(0, equals)), std::string(kDefaultNodeFault)};
  if (equals != std::string_view::npos && equals + 1 < flag.size())
    faulty.reason = std::string(flag.substr(equals + 1));
  if (faulty.name.empty())
    throw std::invalid_argument("--faulty-node needs NAME[=REASON], got \"" + std::string(flag) +
                                "\"");
  return faulty;
}

SlowNode parse_slow_node(std::string_view flag) {
  const std::string usage =
      "--slow-node needs NAME=GBPS (the most bus bandwidth its group reports, e.g. "
      "gpu-node-03=50), got \"" +
      std::string(flag) + "\"";
  const auto equals = flag.find('=');
  if (equals == 0 || equals == std::string_view::npos) throw std::invalid_argument(usage);
  SlowNode slow{std::string(flag.substr(0, equals)), 0};
  const auto gbps = flag.substr(equals + 1);
  auto [end, error] =
      std::from_chars(gbps.data(), gbps.data() + gbps.size(), slow.bus_bandwidth_gbps);
  if (error != std::errc() || end != gbps.data() + gbps.size() || !(slow.bus_bandwidth_gbps > 0))
    throw std::invalid_argument(usage);
  return slow;
}

std::string profile_node_name(int index, int node_count) {
  const int width =
      std::max(2, static_cast<int>(std::to_string(std::max(node_count - 1, 0)).size()));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "gpu-node-%0*d", width, index);
  return buffer;
}

std::vector<json::value> build_cluster_nodes(const ClusterProfile& profile,
                                             const std::string& timestamp) {
  // By node: the kube-sim annotations it gets, and the flag that asked for them.
  std::map<std::string, std::pair<json::object, std::string>> wanted;
  for (const auto& faulty : profile.faulty_nodes) {
    auto& [annotations, flag] = wanted[faulty.name];
    annotations[kNodeFaultAnnotation] = faulty.reason;
    flag = "--faulty-node";
  }
  for (const auto& slow : profile.slow_nodes) {
    auto& [annotations, flag] = wanted[slow.name];
    char gbps[32];
    std::snprintf(gbps, sizeof gbps, "%g", slow.bus_bandwidth_gbps);
    annotations[kNodeBusBandwidthAnnotation] = gbps;
    flag = "--slow-node";
  }
  for (const auto& name : profile.stall_nodes) {
    auto& [annotations, flag] = wanted[name];
    annotations[kNodeStallAnnotation] = "true";
    flag = "--stall-node";
  }
  for (const auto& condition : profile.node_conditions) {
    auto& [annotations, flag] = wanted[condition.node];
    const auto* types = annotations.if_contains(kNodeConditionAnnotation);
    annotations[kNodeConditionAnnotation] =
        types ? std::string(types->as_string()) + "," + condition.type : condition.type;
    flag = "--node-condition";
  }
  std::vector<json::value> nodes;
  for (int i = 0; i < profile.node_count; ++i) {
    auto it = wanted.find(profile_node_name(i, profile.node_count));
    nodes.push_back(
        build_node(profile, i, timestamp, it == wanted.end() ? json::object{} : it->second.first));
    if (it != wanted.end()) wanted.erase(it);
  }
  if (!wanted.empty())
    throw std::invalid_argument(
        wanted.begin()->second.second + " " + wanted.begin()->first + " is not a node of the " +
        profile.platform + ":" + profile.architecture + ":" + std::to_string(profile.node_count) +
        " cluster (" + profile_node_name(0, profile.node_count) + " .. " +
        profile_node_name(profile.node_count - 1, profile.node_count) + ")");
  return nodes;
}

void add_cluster_nodes(Store& store, const ResourceType& node_type, const ClusterProfile& profile) {
  for (auto& node : build_cluster_nodes(profile, store.now_rfc3339())) {
    json::value status = node.as_object()["status"];
    json::value created =
        store.create(node_type, "", std::move(node));  // drops status, as the API server does
    created.as_object()["status"] = std::move(status);
    const std::string name = meta_string(created, "name");  // read before `created` is handed over
    store.update(node_type, "", name, std::move(created), Store::UpdateKind::Status);
  }
}

}  // namespace nvcre::sim
