#pragma once
// The hardware kube-sim simulates: cloud platforms (how their nodes identify themselves) and GPU
// models (what GPU Feature Discovery labels them with, how many GPUs and RDMA NICs a node has).
// This is kube-sim's own data, written from what real nodes look like, and deliberately not the
// controller's detection tables: a wrong table in the controller must fail against it end to end.
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvcre::sim {

struct SimPlatform {
  std::string_view name;  // aws, gcp, ...
  // A provider ID of the platform's scheme and layout; its last segment is made per node. Empty:
  // the platform's nodes carry none (Forge).
  std::string_view provider_id;
  std::string_view region;  // topology.kubernetes.io/region ("" = unset)
  std::string_view zone;
  std::string_view marker_label;  // a label the platform's nodes carry ("" = none) ...
  std::string_view marker_value;  // ... and its value
};

struct SimGpuModel {
  std::string_view architecture;  // h100, gb200, ...
  std::string_view product;       // nvidia.com/gpu.product
  std::string_view memory_mib;    // nvidia.com/gpu.memory
  std::string_view family;        // nvidia.com/gpu.family
  bool grace = false;             // Grace-based trays are arm64 in NVL72 racks
  int gpus_per_node = 8;
  int nics_per_node = 8;  // RDMA NICs a node advertises
};

const std::vector<SimPlatform>& sim_platforms();
// The platform of this name; std::invalid_argument naming the known ones otherwise.
const SimPlatform& sim_platform(std::string_view name);
// The platform a Node built by kube-sim belongs to (by provider ID scheme or marker label), or "".
std::string sim_platform_of(const boost::json::value& node);

// The GPU model of a platform: the architecture's model, with the platform's own shape where it
// differs (OCI's 4-GPU L40S and GB200/GB300 shapes).
SimGpuModel sim_gpu_model(std::string_view architecture, std::string_view platform);
// An architecture ("h100") or a product label value ("NVIDIA-H100-80GB-HBM3", any case) -> the
// architecture; std::invalid_argument naming the known architectures otherwise.
std::string sim_architecture(std::string_view name_or_product);

}  // namespace nvcre::sim
