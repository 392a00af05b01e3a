#pragma once
// Which informer-cache object counts (nvcre_cache_objects) to set after the cache changed: every
// batch of watch events and every recorded own write asks, and setting a count builds a label map
// in the metrics library, so only the counts that moved are set.
#include <cstddef>
#include <map>
#include <string>
#include <utility>

namespace nvcre::k8s {

using KindCounts =
    std::map<std::pair<std::string, std::string>, std::size_t>;  // (apiVersion, kind)

// The counts of `current` that differ from `published`, and 0 for a kind `published` holds and
// `current` lacks (a relist emptied it). `published` becomes what is now published.
KindCounts cache_sizes_to_publish(KindCounts& published, KindCounts current);

}  // namespace nvcre::k8s
