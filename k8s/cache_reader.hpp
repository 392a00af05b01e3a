#pragma once
// The CacheView of one read of an ObjectCache (SharedCache::read, under its lock; or the cache's
// own view in tests). Objects are stored as text (k8s/cached_object.hpp); the reader parses an
// object the first time it hands it out and keeps that DOM, at one address, until the reader goes,
// so a reconcile that reads an object twice gets the same pointer and pays one parse. list(),
// owned_by() and list_by_field() select on the stored labels, owner uids and indexed fields, and
// parse only what they return. Objects of kinds the cache keeps parsed are handed out as they are
// kept.
#include "k8s/cached_object.hpp"
#include "k8s/object_cache.hpp"

#include <boost/json/value.hpp>

#include <unordered_map>

namespace nvcre::k8s {

class CacheReader final : public CacheView {
 public:
  explicit CacheReader(const ObjectCache& cache) : cache_(cache) {}
  CacheReader(const CacheReader&) = delete;
  CacheReader& operator=(const CacheReader&) = delete;

  const boost::json::value* get(const ObjectRef& ref) const override;
  std::vector<const boost::json::value*> list(std::string_view api_version, std::string_view kind,
                                              std::string_view ns,
                                              const LabelSelector& selector = {}) const override;
  std::vector<const boost::json::value*> owned_by(std::string_view api_version,
                                                  std::string_view kind, std::string_view ns,
                                                  std::string_view owner_uid) const override;
  // From the field index when the kind has `pointer` indexed; else every object of the kind whose
  // stored text can hold `value` (CachedObject::mentions) is parsed and checked.
  std::vector<const boost::json::value*> list_by_field(std::string_view api_version,
                                                       std::string_view kind, std::string_view ns,
                                                       std::string_view pointer,
                                                       std::string_view value) const override;
  bool seen_deleted(const ObjectRef& ref) const override { return cache_.seen_deleted(ref); }

  // How many objects this reader parsed (kept-parsed ones are not counted).
  std::size_t parsed_count() const { return parsed_.size(); }

 private:
  const boost::json::value* parsed(const CachedObject& object) const;
  // The parsed objects of (apiVersion, kind) in `ns` whose stored form satisfies `keep`.
  template <class Keep>
  std::vector<const boost::json::value*> parsed_where(std::string_view api_version,
                                                      std::string_view kind, std::string_view ns,
                                                      Keep&& keep) const {
    std::vector<const boost::json::value*> out;
    cache_.for_each(api_version, kind, ns, [&](const CachedObject& object) {
      if (keep(object)) out.push_back(parsed(object));
    });
    return out;
  }

  const ObjectCache& cache_;
  // Element addresses in an unordered_map survive rehashing: handed-out pointers stay valid.
  mutable std::unordered_map<const CachedObject*, boost::json::value> parsed_;
};

}  // namespace nvcre::k8s
