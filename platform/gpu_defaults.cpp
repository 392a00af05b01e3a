#include "platform/gpu_defaults.hpp"

#include "k8s/quantity.hpp"
#include "platform/detect.hpp"
#include "platform/platform_names.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

namespace nvcre::platform {
namespace json = boost::json;

namespace {

struct ArchitectureRow {
  std::string_view architecture;
  NodeDefaults defaults;
};

// _lib/gpu-defaults.yaml `defaults`, sorted by architecture.
constexpr std::array<ArchitectureRow, 10> kArchitectureRows{{
    {"a100", {8, 8}},
    {"b200", {8, 8}},
    // x86 HGX B300: an 8-GPU baseboard with its NVSwitch in the chassis (not the arm64 GB300 tray).
    {"b300", {8, 8}},
    {"gb200", {4, 8}},
    {"gb300", {4, 8}},
    {"h100", {8, 8}},
    {"h200", {8, 8}},
    {"l40", {8, 4}},
    {"l40s", {8, 8}},
    // RTX PRO 6000 nodes come in several sizes; 8 is the largest, smaller shapes set gpusPerNode.
    {"rtxpro6000", {8, 0}},
}};

// `platformOverrides`: only the fields an override names replace the architecture row.
struct PlatformOverrideRow {
  std::string_view platform;
  std::string_view architecture;
  std::optional<std::int32_t> gpusPerNode;
  std::optional<std::int32_t> mlnxPerNode;
};

constexpr std::array<PlatformOverrideRow, 4> kPlatformOverrideRows{{
    {"oci", "l40s", 4, 2},
    // Stock OCI GB200 shapes do not advertise nvidia.com/mlnxnics; requesting it leaves pods
    // Pending, so the default is no NIC request (sites with SR-IOV opt in via mlnxPerNode).
    {"oci", "gb200", 4, 0},
    {"oci", "gb300", 4, 4},
    // Nscale NKS GB300 ResourceSlices advertise four rdma.nscale.com devices per node.
    {"nscale", "gb300", std::nullopt, 4},
}};

const ArchitectureRow* find_row(std::string_view architecture) {
  for (const auto& row : kArchitectureRows) {
    if (row.architecture == architecture) return &row;
  }
  return nullptr;
}

bool is_nic_resource(std::string_view name) {
  return name.substr(0, 5) == "rdma/" || name == "nvidia.com/mlnxnics";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

}  // namespace

std::vector<std::string_view> known_gpu_architectures() {
  std::vector<std::string_view> names;
  for (const auto& row : kArchitectureRows) names.push_back(row.architecture);
  return names;
}

bool is_known_gpu_architecture(std::string_view architecture) {
  return find_row(architecture) != nullptr;
}

NodeDefaults gpu_defaults(std::string_view architecture, std::string_view platform) {
  const ArchitectureRow* row = find_row(architecture);
  NodeDefaults result = row != nullptr ? row->defaults : kFallbackNodeDefaults;
  if (platform.empty()) return result;
  for (const auto& override_row : kPlatformOverrideRows) {
    if (override_row.platform != platform || override_row.architecture != architecture) continue;
    if (override_row.gpusPerNode) result.gpusPerNode = *override_row.gpusPerNode;
    if (override_row.mlnxPerNode) result.mlnxPerNode = *override_row.mlnxPerNode;
  }
  return result;
}

bool default_enable_mnnvl(std::string_view architecture) {
  return architecture == "gb200" || architecture == "gb300";
}

std::optional<std::string> gpu_arch_fallback_message(std::string_view architecture,
                                                     std::int32_t gpus_per_node,
                                                     std::int32_t mlnx_per_node,
                                                     std::string_view field_hint) {
  if (architecture.empty() || architecture == kUnknownArchitecture ||
      is_known_gpu_architecture(architecture)) {
    return std::nullopt;
  }
  return "GPU architecture \"" + std::string(architecture) +
         "\" has no entry in the catalog's GPU defaults, which fall back to gpusPerNode=" +
         std::to_string(kFallbackNodeDefaults.gpusPerNode) +
         " mlnxPerNode=" + std::to_string(kFallbackNodeDefaults.mlnxPerNode) +
         " for it; this run is sized at gpusPerNode=" + std::to_string(gpus_per_node) +
         " mlnxPerNode=" + std::to_string(mlnx_per_node) + ". If the nodes differ, set " +
         std::string(field_hint) +
         ", and file an issue so the architecture can be added to the catalog.";
}

std::string parse_gpu_arch_flag(std::string_view value) {
  if (value.empty()) return {};
  std::string architecture = parse_gpu_product(value);
  if (is_known_gpu_architecture(architecture)) return architecture;
  std::vector<std::string> names;
  for (auto name : known_gpu_architectures()) names.emplace_back(name);
  throw std::invalid_argument("invalid --gpu-arch \"" + std::string(value) + "\": must be one of " +
                              join(names));
}

NicResourceDetection detect_nic_resource_name(std::string_view option, std::string_view platform,
                                              std::string_view architecture,
                                              std::int32_t mlnx_per_node,
                                              std::span<const json::value> nodes) {
  if (!option.empty()) return {std::string(option), {}};
  static constexpr std::array<std::string_view, 4> kDetectedArchitectures{"gb200", "gb300", "b200",
                                                                          "b300"};
  if (platform != kOnPrem || std::find(kDetectedArchitectures.begin(), kDetectedArchitectures.end(),
                                       architecture) == kDetectedArchitectures.end()) {
    return {};
  }
  // A NIC request of 0 would not be rendered, but detection still needs at least one per node.
  const std::int32_t required = std::max<std::int32_t>(mlnx_per_node, 1);
  const k8s::Quantity required_quantity = *k8s::Quantity::parse(std::to_string(required));

  std::set<std::string> candidates;  // sorted, for stable messages
  for (const auto& node : nodes) {
    const json::object* allocatable = NodeView(node).allocatable();
    if (allocatable == nullptr) continue;
    for (const auto& entry : *allocatable) {
      if (is_nic_resource(entry.key())) candidates.emplace(entry.key());
    }
  }
  std::vector<std::string> qualified;
  for (const auto& candidate : candidates) {
    const bool everywhere = std::all_of(nodes.begin(), nodes.end(), [&](const json::value& node) {
      const json::object* allocatable = NodeView(node).allocatable();
      const json::value* amount =
          allocatable != nullptr ? allocatable->if_contains(candidate) : nullptr;
      if (amount == nullptr) return false;
      auto quantity = k8s::quantity_from_json(*amount);
      return quantity.has_value() && *quantity >= required_quantity;
    });
    if (everywhere) qualified.push_back(candidate);
  }
  if (qualified.size() == 1) return {qualified.front(), {}};

  const std::string outcome = "; no NIC resource is requested (set nicResourceName to choose one)";
  const std::string amount = std::to_string(required);
  if (qualified.size() > 1) {
    return {{},
            "NIC resource detection is ambiguous: " + join(qualified) + " are all allocatable at " +
                amount + " on every target node" + outcome};
  }
  if (candidates.empty()) {
    return {
        {},
        "no rdma/* or nvidia.com/mlnxnics resource is allocatable on the target nodes" + outcome};
  }
  return {{},
          "NIC resources " + join(std::vector<std::string>(candidates.begin(), candidates.end())) +
              " are present but none is allocatable at " + amount + " on every target node" +
              outcome};
}

}  // namespace nvcre::platform
