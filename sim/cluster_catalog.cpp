#include "sim/cluster_catalog.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

namespace nvcre::sim {
namespace json = boost::json;

namespace {

constexpr std::array<SimGpuModel, 10> kGpuModels{{
    {"a100", "NVIDIA-A100-SXM4-80GB", "81920", "ampere", false, 8, 8},
    {"b200", "NVIDIA-B200", "183359", "blackwell", false, 8, 8},
    {"b300", "NVIDIA-B300-SXM6-AC", "275040", "blackwell", false, 8, 8},  // HGX B300, x86 host
    {"gb200", "NVIDIA-GB200", "189471", "blackwell", true, 4, 8},
    {"gb300", "NVIDIA-GB300", "284208", "blackwell", true, 4, 8},
    {"h100", "NVIDIA-H100-80GB-HBM3", "81559", "hopper", false, 8, 8},
    {"h200", "NVIDIA-H200", "143771", "hopper", false, 8, 8},
    {"l40", "NVIDIA-L40", "46068", "ada-lovelace", false, 8, 4},
    {"l40s", "NVIDIA-L40S", "46068", "ada-lovelace", false, 8, 8},
    // RTX PRO 6000 servers come in several sizes; kube-sim simulates the 8-GPU one, without RDMA.
    {"rtxpro6000", "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition", "97887", "blackwell", false, 8,
     0},
}};

// Shapes a platform sells that differ from the architecture's usual node.
struct PlatformShape {
  std::string_view platform;
  std::string_view architecture;
  int gpus_per_node;
  int nics_per_node;
};

constexpr std::array<PlatformShape, 3> kPlatformShapes{{
    {"oci", "l40s", 4, 2},   // BM.GPU.L40S.4
    {"oci", "gb200", 4, 0},  // stock BM.GPU.GB200.4 advertises no nvidia.com/mlnxnics
    {"oci", "gb300", 4, 4},
}};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string architecture_names() {
  std::string out;
  for (const auto& model : kGpuModels)
    out += (out.empty() ? "" : ", ") + std::string(model.architecture);
  return out;
}

// The node's label value, or nullptr when it has no such label.
const json::string* label_of(const json::value& node, std::string_view key) {
  const auto* labels = jsonkit::find_object(node.as_object(), {"metadata", "labels"});
  return jsonkit::find_string(labels, key);
}

}  // namespace

const std::vector<SimPlatform>& sim_platforms() {
  static const std::vector<SimPlatform> platforms{
      {"aws", "aws:///us-east-1a/i-0000000000000000", "us-east-1", "us-east-1a", "", ""},
      {"gcp", "gce://nvcre-offline/us-central1-a/nvcre-offline-node", "us-central1",
       "us-central1-a", "", ""},
      {"azure",
       "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/nvcre-offline"
       "/providers/Microsoft.Compute/virtualMachines/nvcre-offline-node",
       "eastus", "eastus-1", "", ""},
      {"oci", "ocid1.instance.oc1.iad.nvcreoffline", "us-ashburn-1", "US-ASHBURN-AD-1", "", ""},
      {"onprem", "baremetal://nvcre-offline/nvcre-offline-node", "", "", "", ""},
      {"togetherai", "kubevirt://nvcre-offline/nvcre-offline-node", "", "",
       "node-role.together.ai/worker", ""},
      {"mistral", "metal3://nvcre-offline/nvcre-offline-node", "", "", "", ""},
      {"forge", "", "", "", "nke.nvidia.com/site-name", "nvcre-offline"},
      {"nscale", "openstack:///00000000-0000-0000-0000-000000000000", "", "", "", ""},
  };
  return platforms;
}

const SimPlatform& sim_platform(std::string_view name) {
  for (const auto& platform : sim_platforms())
    if (platform.name == name) return platform;
  std::string names;
  for (const auto& platform : sim_platforms())
    names += (names.empty() ? "" : ", ") + std::string(platform.name);
  throw std::invalid_argument("platform must be one of " + names);
}

std::string sim_platform_of(const json::value& node) {
  if (!node.is_object()) return {};
  for (const auto& platform : sim_platforms()) {
    if (platform.marker_label.empty()) continue;
    const json::string* marker = label_of(node, platform.marker_label);
    if (marker != nullptr && *marker == platform.marker_value) return std::string(platform.name);
  }
  const json::string* id =
      jsonkit::find_string(jsonkit::find_object(node.as_object(), {"spec"}), "providerID");
  if (id == nullptr) return {};
  const std::string_view provider_id = *id;
  for (const auto& platform : sim_platforms()) {
    const std::string_view own = platform.provider_id;
    if (own.empty() || !platform.marker_label.empty()) continue;
    const auto scheme_end =
        own.starts_with("ocid1.") ? std::string_view("ocid1.").size() : own.find("://") + 3;
    if (provider_id.starts_with(own.substr(0, scheme_end))) return std::string(platform.name);
  }
  return {};
}

SimGpuModel sim_gpu_model(std::string_view architecture, std::string_view platform) {
  for (auto model : kGpuModels) {
    if (model.architecture != architecture) continue;
    for (const auto& shape : kPlatformShapes) {
      if (shape.platform != platform || shape.architecture != architecture) continue;
      model.gpus_per_node = shape.gpus_per_node;
      model.nics_per_node = shape.nics_per_node;
    }
    return model;
  }
  throw std::invalid_argument("kube-sim has no GPU model for architecture \"" +
                              std::string(architecture) + "\"; it simulates " +
                              architecture_names());
}

std::string sim_architecture(std::string_view name_or_product) {
  const std::string wanted = lower(name_or_product);
  for (const auto& model : kGpuModels) {
    if (wanted == model.architecture || wanted == lower(model.product))
      return std::string(model.architecture);
  }
  throw std::invalid_argument("GPU \"" + std::string(name_or_product) + "\" must be one of " +
                              architecture_names() + " (or its nvidia.com/gpu.product label)");
}

}  // namespace nvcre::sim
