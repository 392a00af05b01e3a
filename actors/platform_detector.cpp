#include "actors/platform_detector.hpp"

#include "catalog/tcpxo_detect.hpp"
#include "platform/platform_names.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {
namespace {

using self_pointer = platform_detector_actor::stateful_pointer<PlatformDetectorState>;

k8s::ObjectRef node_ref(const std::string& name) { return {"v1", "Node", "", name}; }

const platform::NodeFacts& remember(self_pointer self, platform::NodeFacts facts) {
  ++self->state.derivations;
  auto& slot = self->state.nodes[facts.name];
  slot = std::move(facts);
  return slot;
}

// A Node changed: re-derive it from the cache (the notice carries no object), or forget it.
void on_node_changed(self_pointer self, const ChangeNotice& notice) {
  auto& state = self->state;
  std::optional<platform::NodeFacts> facts;
  if (!notice.deleted) {
    facts = state.config.cache->read(
        [&](const k8s::CacheView& cache) -> std::optional<platform::NodeFacts> {
          const auto* cached = cache.get(node_ref(notice.ref.name));
          return cached == nullptr ? std::nullopt
                                   : std::optional(platform::derive_node_facts(*cached));
        });
  }
  if (facts) {
    remember(self, std::move(*facts));
  } else {
    state.nodes.erase(notice.ref.name);
  }
}

caf::result<platform::DetectionFacts> detect(self_pointer self,
                                             const std::vector<platform::NodeRef>& refs) {
  auto& state = self->state;
  std::map<std::string, std::vector<std::string>> tcpxo_tags;
  auto [nodes, missing] = state.config.cache->read([&](const k8s::CacheView& cache) {
    auto cached = platform::cached_nodes(refs, cache);
    // Only GCP nodes can run GKE's TCPXO installer; the build reads the tags for GCP H100.
    if (cached.missing.empty() && !cached.nodes.empty() &&
        platform::detect_node_platform(cached.nodes.front()) == platform::kGcp)
      tcpxo_tags = catalog::cached_tcpxo_plugin_tags(cache, cached.nodes);
    return cached;
  });
  if (!missing.empty()) {
    return caf::make_error(
        caf::sec::runtime_error,
        "platform_detector: node " + missing + " is no longer cached (deleted since discovery)");
  }
  std::vector<platform::NodeFacts> facts;
  facts.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto known = state.nodes.find(refs[i].name);
    // A node read with its ResourceSlice product is derived for this request only: the facts
    // kept per node are the cached object's.
    if (!refs[i].resource_slice_product.empty()) {
      facts.push_back(platform::derive_node_facts(nodes[i]));
      continue;
    }
    const bool current =
        known != state.nodes.end() &&
        known->second.resource_version == platform::node_resource_version(nodes[i]);
    facts.push_back(current ? known->second
                            : remember(self, platform::derive_node_facts(nodes[i])));
  }
  auto detection = platform::aggregate_detection(facts, std::move(nodes));
  detection.tcpxo_plugin_tags = std::move(tcpxo_tags);
  return detection;
}

}  // namespace

platform_detector_actor::behavior_type platform_detector(
    platform_detector_actor::stateful_pointer<PlatformDetectorState> self,
    PlatformDetectorConfig config) {
  self->state.config = std::move(config);
  return {
      [=](changed_atom, const ChangeNotice& notice) {
        if (notice.ref.kind == "Node" && notice.ref.api_version == "v1")
          on_node_changed(self, notice);
      },
      [=](synced_atom) {},  // requests are served from the cache either way
      [=](detect_atom,
          const std::vector<platform::NodeRef>& refs) -> caf::result<platform::DetectionFacts> {
        try {
          return detect(self, refs);
        } catch (const std::exception& error) {
          // A service that throws stays up; the asking reconcile gets the error and retries.
          return caf::make_error(caf::sec::runtime_error,
                                 std::string("platform_detector: ") + error.what());
        }
      },
      [=](stats_atom) {
        return PlatformDetectorStats{self->state.nodes.size(), self->state.derivations};
      },
  };
}

platform_detector_actor spawn_platform_detector(caf::actor_system& system,
                                                PlatformDetectorConfig config) {
  return system.spawn(platform_detector, std::move(config));
}

}  // namespace nvcre::actors
