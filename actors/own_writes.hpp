#pragma once
// Read-your-writes: the answer to each successful write goes into the shared informer cache before
// the writer hears back, so its next reconcile sees what it wrote even when the watch event of that
// version is still on its way. The API worker decides what to record and hands a copy to the store
// actor, the cache's single writer (recorded by the API workers themselves, the cache's long-lived
// text came from many threads and RSS at 1,000 Certifications grew 6-13 %). The cache keeps an
// object only at a newer resourceVersion than it holds (k8s::ObjectCache::record_own_write), so own
// writes and the watches' deltas commute.
#include "actors/shared_cache.hpp"
#include "k8s/cache_scope.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <vector>

namespace nvcre::actors {

// Whether the successful answer to `verb` is the object as it now stands: a write's answer is; a
// Delete's only when a finalizer still holds the object (a second pass then sees it deleting and
// does not delete it again); a LiveGet wrote nothing.
bool answer_is_current_object(k8s::ActionVerb verb, const boost::json::value& answer);

// Caches `answer`, trimmed, when it is in scope and newer than the cached copy.
bool record_own_write(SharedCache& cache, const std::vector<k8s::CacheScope>& scopes,
                      boost::json::value answer);

}  // namespace nvcre::actors
