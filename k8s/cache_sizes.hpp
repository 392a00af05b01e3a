#pragma once
// Which informer-cache object counts (nvcre_cache_objects) to set after the cache changed: every
// batch of watch events and every recorded own write asks, and setting a count builds a label map
// in the metrics library, so only the counts that moved are set.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace nvcre::k8s {

class ObjectCache;

using KindCounts =
    std::map<std::pair<std::string, std::string>, std::size_t>;  // (apiVersion, kind)

// The counts of `current` that differ from `published`, and 0 for a kind `published` holds and
// `current` lacks (a relist emptied it). `published` becomes what is now published.
KindCounts cache_sizes_to_publish(KindCounts& published, KindCounts current);

// Remembers what was published. Most changes replace an object, which moves no count, so the
// cache is recounted only when an object came or went since the last call.
class CacheSizePublisher {
 public:
  // The counts to set now (cache_sizes_to_publish of a recount), or none.
  KindCounts counts_to_set(const ObjectCache& cache);

 private:
  std::optional<std::uint64_t> counted_at_;  // the cache's membership_changes() at the last recount
  KindCounts published_;
};

}  // namespace nvcre::k8s
