#pragma once
// The platform_detector: owns the manager's Node view. It follows the store's Node changes and
// keeps each GPU node's derived facts (platform, architecture vote; platform/node_facts.hpp), so a
// detect request over a target's nodes only aggregates. The nodes themselves are read from the
// shared cache: one whose kept facts are not of the cached resourceVersion (its change notice is
// still on the way) is derived on the spot, so an answer is never older than the reconcile's
// snapshot. A node gone from the cache is an error (the reconcile retries and discovers again).
#include "actors/interfaces.hpp"
#include "actors/shared_cache.hpp"

#include <map>
#include <memory>
#include <string>

namespace nvcre::actors {

struct PlatformDetectorConfig {
  std::shared_ptr<const SharedCache> cache;
};

struct PlatformDetectorState {
  PlatformDetectorConfig config;
  std::map<std::string, platform::NodeFacts> nodes;  // by node name
  std::uint64_t derivations = 0;
  static inline const char* name = "platform_detector";
};

platform_detector_actor::behavior_type platform_detector(
    platform_detector_actor::stateful_pointer<PlatformDetectorState> self,
    PlatformDetectorConfig config);

platform_detector_actor spawn_platform_detector(caf::actor_system& system,
                                                PlatformDetectorConfig config);

}  // namespace nvcre::actors
