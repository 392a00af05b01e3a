#include "actors/own_writes.hpp"

#include "k8s/cache_transform.hpp"

namespace nvcre::actors {

bool OwnWrites::record(const boost::json::value& written) const {
  if (!written.is_object() || !k8s::in_cache_scope(scopes, written)) return false;
  boost::json::value kept = written;  // the writer gets the whole answer; the cache keeps less
  k8s::trim_for_cache(kept);
  return cache->write([&](k8s::ObjectCache& objects) { return objects.record_own_write(std::move(kept)); });
}

}  // namespace nvcre::actors
