#pragma once
// The informer cache shared by the store actor (its only writer) and the reconciler actors
// (readers, for the duration of one pure reconcile call), as client-go's thread-safe store is.
// Readers hold the lock only while the pure function runs; plans own their data.
#include "k8s/object_cache.hpp"

#include <shared_mutex>

namespace nvcre::actors {

class SharedCache {
 public:
  template <class Fn>
  auto read(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    return fn(static_cast<const k8s::CacheView&>(cache_));
  }
  template <class Fn>
  auto write(Fn&& fn) {
    std::unique_lock lock(mutex_);
    return fn(cache_);
  }

 private:
  mutable std::shared_mutex mutex_;
  k8s::ObjectCache cache_;
};

}  // namespace nvcre::actors
