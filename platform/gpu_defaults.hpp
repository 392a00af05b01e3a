#pragma once
// Per-architecture node sizing: GPUs and
// Mellanox NICs per node, the MNNVL default, the unknown-architecture fallback and its warning,
// the --gpu-arch flag, and on-prem NIC resource auto-detection. The table is compiled-in data.
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::platform {

struct NodeDefaults {
  std::int32_t gpusPerNode = 0;
  std::int32_t mlnxPerNode = 0;  // 0: fragments leave nvidia.com/mlnxnics out entirely
  bool operator==(const NodeDefaults&) const = default;
};

// Sizing for architectures the table does not list.
inline constexpr NodeDefaults kFallbackNodeDefaults{4, 0};

// Architectures with table entries, sorted (the order of the --gpu-arch error message).
std::vector<std::string_view> known_gpu_architectures();
bool is_known_gpu_architecture(std::string_view architecture);

// GPUDefaults(arch, platform): the architecture's row (or the fallback), then the fields the
// platform override sets — an explicit 0 in an override counts (OCI GB200 drops its NIC request).
// An empty platform means "architecture defaults only".
NodeDefaults gpu_defaults(std::string_view architecture, std::string_view platform);

// MNNVL is on by default only for the NVLink-domain parts, GB200 and GB300 (B200/B300 stay off).
bool default_enable_mnnvl(std::string_view architecture);

// Where a user sets the sizing, named in the GPUArchitectureDefaults Warning (one per kind).
inline constexpr std::string_view kGpuArchFieldHintCertification =
    "spec.gpusPerNode and spec.mlnxPerNode (or spec.categories[].options)";
inline constexpr std::string_view kGpuArchFieldHintWorkloadRun =
    "spec.gpusPerNode and spec.mlnxPerNode";

// The text of the GPUArchitectureDefaults Warning when `architecture` is a real but unlisted
// architecture (not "", not "unknown"); nullopt otherwise. It names both the table's fallback
// sizing and the sizing this run uses (`gpus_per_node`/`mlnx_per_node`, which differ when the
// user set them), and where to set them (`field_hint`). Callers prefix "<domain>/<variant>: ".
std::optional<std::string> gpu_arch_fallback_message(std::string_view architecture,
                                                     std::int32_t gpus_per_node,
                                                     std::int32_t mlnx_per_node,
                                                     std::string_view field_hint);

// ParseGPUArchFlag: "" -> ""; otherwise parse_gpu_product(value), which must be a table key, else
// std::invalid_argument `invalid --gpu-arch "<value>": must be one of a100, b200, ...`.
std::string parse_gpu_arch_flag(std::string_view value);

// On-prem NIC resource auto-detection (nic_detect.go). An explicit option always wins. Otherwise
// only on onprem GB200/GB300/B200/B300: the one `rdma/*` or `nvidia.com/mlnxnics` resource that
// every node has allocatable at >= max(mlnxPerNode, 1). When there is no single answer nothing is
// injected and `message` explains why (Normal event NICResourceDetection, "<d>/<v>: " prefixed).
struct NicResourceDetection {
  std::string resourceName;
  std::string message;
};
NicResourceDetection detect_nic_resource_name(std::string_view option, std::string_view platform,
                                              std::string_view architecture,
                                              std::int32_t mlnx_per_node,
                                              std::span<const boost::json::value> nodes);

}  // namespace nvcre::platform
