#include "k8s/cache_sizes.hpp"

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

}  // namespace nvcre::k8s
