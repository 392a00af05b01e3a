#pragma once
// What a reconcile may read besides its own object: a read-only view of the informer caches.
// `ObjectCache` is the in-memory implementation the store actors keep (one per watched kind set)
// and the tests fill by hand; reconcile functions only ever see `const CacheView&`.
#include "k8s/label_selector.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

class CacheView {
 public:
  virtual ~CacheView() = default;
  // The cached object, or nullptr (which is not proof that it does not exist: see LiveGet).
  virtual const boost::json::value* get(const ObjectRef& ref) const = 0;
  // Objects of (apiVersion, kind) in `ns` ("" = every namespace) whose labels match `selector`,
  // in (namespace, name) order.
  virtual std::vector<const boost::json::value*> list(std::string_view api_version, std::string_view kind,
                                                      std::string_view ns,
                                                      const LabelSelector& selector = {}) const = 0;
  // Objects of (apiVersion, kind) in `ns` that carry an ownerReference with this uid.
  virtual std::vector<const boost::json::value*> owned_by(std::string_view api_version, std::string_view kind,
                                                          std::string_view ns, std::string_view owner_uid) const = 0;
};

class ObjectCache final : public CacheView {
 public:
  // Inserts or replaces by (apiVersion, kind, namespace, name) read from the object itself: what
  // the watch delivered. It only declines to go back in time, when the cached copy is a newer own
  // write (record_own_write). Throws std::invalid_argument when apiVersion, kind or metadata.name
  // is missing.
  void upsert(boost::json::value object);
  // The manager's own successful write (create, patch, update), so that its next reconcile reads
  // what it just wrote instead of acting again on a stale copy (read-your-writes). Applied only when
  // the resourceVersions are decimal integers (etcd revisions, as every kube-apiserver serves) and
  // the write is newer than both the cached copy and everything the watch of its kind delivered so
  // far; otherwise the watch already brought this version or a later one, and applying it could
  // bring back an object that is gone. The watch's event for the same version replaces it later.
  // Returns whether it was applied.
  bool record_own_write(boost::json::value object);
  void erase(const ObjectRef& ref);
  // A watch's deletion: `last_state` is the object as the DELETED event carried it.
  void erase(const boost::json::value& last_state);
  // Drops every object of (apiVersion, kind): a reflector's relist replaces its kind wholesale.
  void clear_kind(std::string_view api_version, std::string_view kind);
  std::size_t size() const { return objects_.size(); }

  const boost::json::value* get(const ObjectRef& ref) const override;
  std::vector<const boost::json::value*> list(std::string_view api_version, std::string_view kind,
                                              std::string_view ns, const LabelSelector& selector = {}) const override;
  std::vector<const boost::json::value*> owned_by(std::string_view api_version, std::string_view kind,
                                                  std::string_view ns, std::string_view owner_uid) const override;

 private:
  void note_delivered(const ObjectRef& ref, const boost::json::value& object);

  std::map<ObjectRef, boost::json::value> objects_;  // ordered: kind ranges are contiguous
  // Per (apiVersion, kind): the highest resourceVersion the watch delivered (record_own_write).
  std::map<std::pair<std::string, std::string>, std::uint64_t> delivered_;
};

// metadata.resourceVersion as an integer, when it is one.
std::optional<std::uint64_t> integer_resource_version(const boost::json::value& object);

// Helpers for reading cached objects (missing fields read as empty).
ObjectRef object_ref_of(const boost::json::value& object);
Labels labels_of(const boost::json::value& object);
std::string uid_of(const boost::json::value& object);

}  // namespace nvcre::k8s
