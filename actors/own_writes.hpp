#pragma once
// Read-your-writes: the answer to each successful write goes into the shared informer cache before
// the writer hears back, so its next reconcile sees what it wrote even when the watch event of that
// version is still on its way. The API worker that made the write records it itself, under the
// cache's lock: through the store actor it cost two more thread hand-offs per write, on the
// writer's critical path. The cache keeps an object only at a newer resourceVersion than it holds
// (k8s::ObjectCache::record_own_write), so the store's watch deltas and these writes commute.
#include "actors/shared_cache.hpp"
#include "k8s/cache_scope.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <memory>
#include <vector>

namespace nvcre::actors {

struct OwnWrites {
  std::shared_ptr<SharedCache> cache;
  std::vector<k8s::CacheScope> scopes;  // only what a watch delivers (k8s/cache_scope.hpp)

  // Caches a trimmed copy of a successful write's answer when it is in scope and newer than the
  // cached copy. Of a Delete, only an object a finalizer still holds (a second pass then sees it
  // deleting and does not delete it again); a LiveGet wrote nothing.
  bool record(k8s::ActionVerb verb, const boost::json::value& answer) const;
};

}  // namespace nvcre::actors
