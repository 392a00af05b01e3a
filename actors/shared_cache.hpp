#pragma once
// The informer cache shared by the store actor (its only writer) and the reconciler actors
// (readers, for the duration of one pure reconcile call), as client-go's thread-safe store is.
// Readers hold the lock only while the pure function runs; plans own their data.
// Each read gets its own CacheReader: the objects it parses (the cache keeps them compact) live
// for that read only, and readers on other threads never share one.
#include "api/labels.hpp"
#include "api/measurement.hpp"
#include "api/meta.hpp"
#include "job/job_watches.hpp"
#include "k8s/cache_reader.hpp"
#include "k8s/object_cache.hpp"
#include "measure/worker_pods.hpp"

#include <shared_mutex>

namespace nvcre::actors {

class SharedCache {
 public:
  template <class Fn>
  auto read(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    const k8s::CacheReader reader(cache_);
    return fn(static_cast<const k8s::CacheView&>(reader));
  }
  template <class Fn>
  auto write(Fn&& fn) {
    std::unique_lock lock(mutex_);
    return fn(cache_);
  }

 private:
  mutable std::shared_mutex mutex_;
  // Nodes stay parsed: the cluster's inventory (in the idle baseline, not per Certification), and
  // node discovery lists every one of them on each Certification create and Workflow discovery.
  // Pods are indexed by the two labels Job and measurement passes select their pods by, so a
  // pass reads its few pods instead of every pod of the namespace, and by their node, so a Node's
  // change (one per node on every relist) reads only that node's pods; measurements by the Job
  // they name, so a Job's change wakes its own measurements without reading the others.
  k8s::ObjectCache cache_{
      std::set<k8s::ObjectCache::KindKey>{{"v1", "Node"}},
      k8s::ObjectCache::IndexedLabels{
          {{"v1", "Pod"}, {std::string(api::kJobLabel), std::string(measure::kJobSetNameLabel)}}},
      k8s::ObjectCache::IndexedFields{{{"v1", "Pod"}, {std::string(job::kPodNodeNamePointer)}},
                                      {{std::string(api::kApiVersion), "BandwidthMeasurement"},
                                       {std::string(api::kJobRefNamePointer)}},
                                      {{std::string(api::kApiVersion), "GoodputMeasurement"},
                                       {std::string(api::kJobRefNamePointer)}}}};
};

}  // namespace nvcre::actors
