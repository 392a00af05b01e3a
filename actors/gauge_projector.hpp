#pragma once
// The gauge_projector: follows the store's changes of the kinds that project gauges (the
// measurements, Jobs, Workflows, Certifications) and keeps each object's series in the Prometheus
// registry equal to what its current state projects, read with the cache the object is in (a
// Workflow's topology gauges read its overflow nodes' labels); a deleted object's series go with
// it. Stateless: the series per object are kept by k8s::Metrics.
#include "actors/interfaces.hpp"
#include "actors/shared_cache.hpp"
#include "k8s/metrics.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nvcre::actors {

struct GaugeProjectorConfig {
  std::shared_ptr<const SharedCache> cache;
  std::shared_ptr<k8s::Metrics> metrics;
  std::map<std::string, k8s::GaugeProjection> projections;  // by kind
};

change_subscriber_actor spawn_gauge_projector(caf::actor_system& system,
                                              GaugeProjectorConfig config);

}  // namespace nvcre::actors
