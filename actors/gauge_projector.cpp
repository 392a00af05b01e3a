#include "actors/gauge_projector.hpp"

#include <caf/all.hpp>

#include <spdlog/spdlog.h>

namespace nvcre::actors {
namespace {

struct GaugeProjectorState {
  static inline const char* name = "gauge_projector";
};

change_subscriber_actor::behavior_type gauge_projector(
    change_subscriber_actor::stateful_pointer<GaugeProjectorState>, GaugeProjectorConfig config) {
  return {
      [config](changed_atom, const ChangeNotice& notice) {
        auto projection = config.projections.find(notice.ref.kind);
        if (projection == config.projections.end()) return;
        const std::string key = notice.ref.kind + "/" + notice.ref.ns + "/" + notice.ref.name;
        auto samples = config.cache->read([&](const k8s::CacheView& cache) {
          const boost::json::value* object = cache.get(notice.ref);
          return object == nullptr ? std::vector<k8s::GaugeSample>{}
                                   : projection->second(*object, cache);
        });
        try {
          config.metrics->replace_object_gauges(key, samples);
        } catch (const std::invalid_argument& error) {
          spdlog::warn("gauges of {}: {}", key, error.what());  // a projection naming no family
        }
      },
      [](synced_atom) {},
  };
}

}  // namespace

change_subscriber_actor spawn_gauge_projector(caf::actor_system& system,
                                              GaugeProjectorConfig config) {
  return system.spawn(gauge_projector, std::move(config));
}

}  // namespace nvcre::actors
