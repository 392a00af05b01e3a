#include "k8s/cache_scope.hpp"

#include "k8s/object_cache.hpp"

#include <algorithm>

namespace nvcre::k8s {

bool in_cache_scope(const std::vector<CacheScope>& scopes, const boost::json::value& object) {
  const ObjectRef ref = object_ref_of(object);
  return std::any_of(scopes.begin(), scopes.end(), [&](const CacheScope& scope) {
    return scope.api_version == ref.api_version && scope.kind == ref.kind &&
           (scope.ns.empty() || scope.ns == ref.ns) &&
           (scope.selector.empty() || scope.selector.matches(labels_of(object)));
  });
}

}  // namespace nvcre::k8s
