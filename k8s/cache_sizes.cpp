#include "k8s/cache_sizes.hpp"

#include "k8s/object_cache.hpp"

namespace nvcre::k8s {

KindCounts cache_sizes_to_publish(KindCounts& published, KindCounts current) {
  for (const auto& [kind, count] : published) current.try_emplace(kind, 0);
  KindCounts out;
  for (const auto& [kind, count] : current) {
    auto [entry, added] = published.try_emplace(kind, count);
    if (!added && entry->second == count) continue;
    entry->second = count;
    out.emplace(kind, count);
  }
  return out;
}

KindCounts CacheSizePublisher::counts_to_set(const ObjectCache& cache) {
  if (counted_at_ == cache.membership_changes()) return {};
  counted_at_ = cache.membership_changes();
  return cache_sizes_to_publish(published_, cache.size_by_kind());
}

}  // namespace nvcre::k8s
