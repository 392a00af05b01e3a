#include "platform/topology_keys.hpp"

#include "platform/platform_names.hpp"

namespace nvcre::platform {

std::string_view default_topology_key(std::string_view platform) {
  if (platform == kAws) return kAwsTopologyKey;
  if (platform == kGcp) return kGcpTopologyKey;
  if (platform == kAzure) return kAzureTopologyKey;
  return {};
}

}  // namespace nvcre::platform
