#pragma once
// What a reconcile may read besides its own object: a read-only view of the informer caches.
// `ObjectCache` is the in-memory implementation the store actors keep (one per watched kind set)
// and the tests fill by hand; reconcile functions only ever see `const CacheView&`.
// It stores each object as text (k8s/cached_object.hpp) and hands out parsed DOMs through a
// CacheReader (k8s/cache_reader.hpp): the manager opens one per SharedCache::read, so parsed
// objects live for one reconcile, not for as long as they are cached.
#include "k8s/cached_object.hpp"
#include "k8s/label_selector.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nvcre::k8s {

// Whether `object`'s value at JSON pointer `pointer` is the string `value`.
bool string_at_pointer_is(const boost::json::value& object, std::string_view pointer,
                          std::string_view value);

class CacheView {
 public:
  virtual ~CacheView() = default;
  // The cached object, or nullptr (which is not proof that it does not exist: see LiveGet).
  virtual const boost::json::value* get(const ObjectRef& ref) const = 0;
  // Objects of (apiVersion, kind) in `ns` ("" = every namespace) whose labels match `selector`,
  // in (namespace, name) order.
  virtual std::vector<const boost::json::value*> list(std::string_view api_version,
                                                      std::string_view kind, std::string_view ns,
                                                      const LabelSelector& selector = {}) const = 0;
  // Objects of (apiVersion, kind) in `ns` that carry an ownerReference with this uid.
  virtual std::vector<const boost::json::value*> owned_by(std::string_view api_version,
                                                          std::string_view kind,
                                                          std::string_view ns,
                                                          std::string_view owner_uid) const = 0;
  // Objects of (apiVersion, kind) in `ns` whose string at `pointer` (a JSON pointer such as
  // "/spec/jobRef/name") is `value`, in (namespace, name) order: controller-runtime's field index.
  // This default reads every object of the kind; ObjectCache answers from an index when the kind
  // has that field indexed.
  virtual std::vector<const boost::json::value*> list_by_field(std::string_view api_version,
                                                               std::string_view kind,
                                                               std::string_view ns,
                                                               std::string_view pointer,
                                                               std::string_view value) const;
  // Whether this object's watch reported it deleted and nothing of that name arrived since: proof
  // of absence as good as a live NotFound (the watch's DELETED event is the server's word), so a
  // reconcile confirming that a child is gone needs no LiveGet. False when unknown.
  virtual bool seen_deleted(const ObjectRef& ref) const {
    (void)ref;
    return false;
  }
};

class CacheReader;

class ObjectCache final : public CacheView {
 public:
  using KindKey = std::pair<std::string, std::string>;  // (apiVersion, kind)
  // Label keys whose values are indexed, per kind (client-go's Indexers): a list selecting
  // key=value on one of them reads the matching objects only, not every object of the kind.
  using IndexedLabels = std::map<KindKey, std::set<std::string>>;
  // String fields whose values are indexed, per kind, as JSON pointers ("/spec/jobRef/name"):
  // list_by_field on one of them reads the matching objects only.
  using IndexedFields = std::map<KindKey, std::vector<std::string>>;
  // `kept_parsed`: kinds stored as DOMs instead of text (see k8s/cached_object.hpp).
  explicit ObjectCache(std::set<KindKey> kept_parsed = {}, IndexedLabels indexed_labels = {},
                       IndexedFields indexed_fields = {});
  ~ObjectCache() override;
  ObjectCache(const ObjectCache& other);
  ObjectCache(ObjectCache&& other) noexcept;
  ObjectCache& operator=(const ObjectCache& other);
  ObjectCache& operator=(ObjectCache&& other) noexcept;

  // Inserts or replaces by (apiVersion, kind, namespace, name) read from the object itself: what
  // the watch delivered. It only declines to go back in time, when the cached copy is a newer own
  // write (record_own_write), and keeps the cached copy of the same version (the echo of an own
  // write). Throws std::invalid_argument when apiVersion, kind or metadata.name
  // is missing.
  void upsert(boost::json::value object);
  // The manager's own successful write (create, patch, update), so that its next reconcile reads
  // what it just wrote instead of acting again on a stale copy (read-your-writes). Applied only
  // when the resourceVersions are decimal integers (etcd revisions, as every kube-apiserver serves)
  // and the write is newer than both the cached copy and everything the watch of its kind delivered
  // so far; otherwise the watch already brought this version or a later one, and applying it could
  // bring back an object that is gone. The watch's event for the same version finds it cached.
  // Returns whether it was applied.
  bool record_own_write(boost::json::value object);
  void erase(const ObjectRef& ref);
  // A watch's deletion: `last_state` is the object as the DELETED event carried it. Remembered
  // (seen_deleted) until the name is cached again or kTombstones later deletions push it out.
  void erase(const boost::json::value& last_state);
  // Drops every object of (apiVersion, kind): a reflector's relist replaces its kind wholesale.
  void clear_kind(std::string_view api_version, std::string_view kind);
  std::size_t size() const;
  // Objects per (apiVersion, kind), every kind that ever held one (0 once all are gone).
  std::map<KindKey, std::size_t> size_by_kind() const;
  // Grows each time an object is added or removed, not when one is replaced: size_by_kind() can
  // only differ from an earlier answer when this did (most watch events replace an object).
  std::uint64_t membership_changes() const { return membership_changes_; }

  // The stored form, for readers (CacheReader).
  const CachedObject* find(const ObjectRef& ref) const;
  // Calls fn(const CachedObject&) for each object of (apiVersion, kind) in `ns` ("" = every
  // namespace), in (namespace, name) order.
  template <class Fn>
  void for_each(std::string_view api_version, std::string_view kind, std::string_view ns,
                Fn&& fn) const {
    auto objects = kinds_.find(StringPair{api_version, kind});
    if (objects == kinds_.end()) return;
    for (auto it = objects->second.lower_bound(StringPair{ns, {}}); it != objects->second.end();
         ++it) {
      if (!ns.empty() && it->first.first != ns) break;
      fn(it->second);
    }
  }

  // Calls fn(const CachedObject&) for each object of (apiVersion, kind) in `ns` ("" = every
  // namespace) whose label `key` (or, for a `key` starting with '/', whose indexed field at that
  // JSON pointer; no label key starts with '/') is `value`, in (namespace, name) order, and returns
  // true; returns false without calling fn when `key` is not indexed for that kind.
  template <class Fn>
  bool for_each_indexed(std::string_view api_version, std::string_view kind, std::string_view ns,
                        std::string_view key, std::string_view value, Fn&& fn) const {
    if (!is_indexed(api_version, kind, key)) return false;
    auto entries = label_index_.find(label_index_key(api_version, kind, key, value));
    if (entries == label_index_.end()) return true;
    for (auto it = entries->second.lower_bound(StringPair{ns, {}}); it != entries->second.end();
         ++it) {
      if (!ns.empty() && (*it)->first.first != ns) break;
      fn((*it)->second);
    }
    return true;
  }
  // Names held by the label and field index, all entries together: as many as indexed labels and
  // non-empty indexed fields on cached objects, never more (a stale entry would be a leak, not a
  // wrong answer).
  std::size_t label_index_size() const;
  // The cache's own view, for tests and single-threaded tools: objects are parsed on demand and
  // kept until the next write (which invalidates every pointer handed out). The manager reads
  // through SharedCache::read instead, whose CacheReader lives for one read.
  const boost::json::value* get(const ObjectRef& ref) const override;
  std::vector<const boost::json::value*> list(std::string_view api_version, std::string_view kind,
                                              std::string_view ns,
                                              const LabelSelector& selector = {}) const override;
  std::vector<const boost::json::value*> owned_by(std::string_view api_version,
                                                  std::string_view kind, std::string_view ns,
                                                  std::string_view owner_uid) const override;
  std::vector<const boost::json::value*> list_by_field(std::string_view api_version,
                                                       std::string_view kind, std::string_view ns,
                                                       std::string_view pointer,
                                                       std::string_view value) const override;
  bool seen_deleted(const ObjectRef& ref) const override { return tombstones_.contains(ref); }

  // How many watch deletions seen_deleted remembers: a few thousand refs (a few hundred KiB) cover
  // every child a burst of finished Certifications deletes between two passes of their owners.
  static constexpr std::size_t kTombstones = 8192;

 private:
  // (apiVersion, kind) or (namespace, name); looked up by string_views without copying them.
  using StringPair = std::pair<std::string_view, std::string_view>;
  using Key = std::pair<std::string, std::string>;
  struct KeyOrder {
    using is_transparent = void;
    static StringPair view(const Key& key) { return {key.first, key.second}; }
    static StringPair view(const StringPair& key) { return key; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) < view(b);
    }
  };
  // Per kind, so no object repeats its apiVersion and kind; ordered by (namespace, name).
  using Objects = std::map<Key, CachedObject, KeyOrder>;
  // An object's place in its kind's map (stable until the object is erased), as the label index
  // holds it: no copy of its namespace and name, and no second lookup to reach it.
  using Entry = Objects::value_type;
  struct EntryOrder {
    using is_transparent = void;
    static StringPair view(const Entry* entry) { return KeyOrder::view(entry->first); }
    static StringPair view(const StringPair& key) { return key; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) < view(b);
    }
  };

  // label_index_'s key: apiVersion, kind, label key and value, NUL-separated.
  static std::string label_index_key(std::string_view api_version, std::string_view kind,
                                     std::string_view key, std::string_view value);
  bool is_indexed(std::string_view api_version, std::string_view kind, std::string_view key) const;
  // The kind's indexed fields (empty when none).
  const std::vector<std::string>& fields_of(std::string_view api_version,
                                            std::string_view kind) const;
  // Adds (or removes) the indexed labels and fields of `entry`, the object `ref` names.
  void index_labels(const ObjectRef& ref, const Entry& entry, bool add);
  // Indexes every cached object again (a copy's index must point into its own maps).
  void reindex();
  void put(const ObjectRef& ref, boost::json::value object);  // inserts or replaces
  void note_delivered(const ObjectRef& ref, const boost::json::value& object);
  CacheReader& own_reader() const;  // with own_reader_mutex_ held
  void forget_own_reader();         // every write: the pointers it handed out go stale

  std::set<KindKey> kept_parsed_;
  IndexedLabels indexed_labels_;
  IndexedFields indexed_fields_;
  std::map<Key, Objects, KeyOrder> kinds_;
  // Per kind stored as text: its packer (k8s/packed_text.hpp).
  std::map<KindKey, TextPacker> packers_;
  // label_index_key -> every object carrying that label (or field) value, by (namespace, name).
  std::map<std::string, std::set<const Entry*, EntryOrder>, std::less<>> label_index_;
  // Per (apiVersion, kind): the highest resourceVersion the watch delivered (record_own_write).
  std::map<std::pair<std::string, std::string>, std::uint64_t> delivered_;
  std::uint64_t membership_changes_ = 0;
  // Watch deletions (seen_deleted), oldest first in tombstone_order_ (which may hold refs since
  // cached again: their eviction is a no-op or forgets a newer tombstone early, never a wrong yes).
  std::set<ObjectRef> tombstones_;
  std::deque<ObjectRef> tombstone_order_;
  mutable std::mutex own_reader_mutex_;
  mutable std::unique_ptr<CacheReader> own_reader_;
};

// metadata.resourceVersion as an integer, when it is one.
std::optional<std::uint64_t> integer_resource_version(const boost::json::value& object);

// Helpers for reading cached objects (missing fields read as empty).
ObjectRef object_ref_of(const boost::json::value& object);
Labels labels_of(const boost::json::value& object);
std::string uid_of(const boost::json::value& object);

}  // namespace nvcre::k8s
