#pragma once
// The node labels that name a network topology domain (a rack / leaf switch) per platform, and
// GPU Feature Discovery's NVLink clique label. `nvcrectl cluster info` groups nodes by them; a
// topology-aware command that has to guess a key asks here, so the table exists once.
#include <string_view>

namespace nvcre::platform {

inline constexpr std::string_view kAwsTopologyKey = "topology.k8s.aws/network-node-layer-1";
inline constexpr std::string_view kGcpTopologyKey = "cloud.google.com/gce-topology-block";
inline constexpr std::string_view kAzureTopologyKey = "kubernetes.azure.com/ppg";
// <NVLink cluster UUID>.<clique id>: one value per NVL72 rack (GB200 / GB300).
inline constexpr std::string_view kNvlinkCliqueLabel = "nvidia.com/gpu.clique";

// The network topology label the platform's provider sets; "" where there is no convention.
std::string_view default_topology_key(std::string_view platform);

}  // namespace nvcre::platform
