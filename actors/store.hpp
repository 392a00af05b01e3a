#pragma once
// The store actor: the single writer of the shared informer cache. Reflectors send it deltas, the
// API workers the manager's own writes (actors/own_writes.hpp); it
// keeps of each object only what the controllers read (k8s/cache_transform.hpp), applies the
// deltas and tells every subscribed controller what changed. Once every expected kind has been
// listed in full it announces `synced` (controllers wait for it, as controller-runtime waits for
// caches).
#include "actors/interfaces.hpp"
#include "actors/shared_cache.hpp"
#include "k8s/cache_scope.hpp"
#include "k8s/cache_sizes.hpp"
#include "k8s/metrics.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace nvcre::actors {

struct StoreConfig {
  std::shared_ptr<SharedCache> cache;
  std::set<std::pair<std::string, std::string>> expected_kinds;  // (apiVersion, kind)
  std::shared_ptr<std::atomic<bool>> synced_flag;                // optional: readable by /readyz
  std::vector<k8s::CacheScope> scopes;      // for own writes (read-your-writes)
  std::shared_ptr<k8s::Metrics> metrics{};  // optional: nvcre_cache_objects per kind
};

struct StoreState {
  StoreConfig config;
  std::vector<change_subscriber_actor> subscribers;
  std::set<std::pair<std::string, std::string>> synced_kinds;
  bool synced = false;
  // nvcre_cache_objects as last published: a batch that changes no count sets nothing.
  k8s::CacheSizePublisher cache_sizes;
  static inline const char* name = "store";
};

store_actor::behavior_type store(store_actor::stateful_pointer<StoreState> self,
                                 StoreConfig config);

// The change notice for a cached object (owners from metadata.ownerReferences).
ChangeNotice change_notice_for(const boost::json::value& object, bool deleted);

}  // namespace nvcre::actors
