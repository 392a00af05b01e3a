#pragma once
// What a reconcile may read besides its own object: a read-only view of the informer caches.
// `ObjectCache` is the in-memory implementation the store actors keep (one per watched kind set)
// and the tests fill by hand; reconcile functions only ever see `const CacheView&`.
#include "k8s/label_selector.hpp"
#include "k8s/reconcile_plan.hpp"

#include <boost/json/value.hpp>

#include <map>
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
  // Inserts or replaces by (apiVersion, kind, namespace, name) read from the object itself.
  // Throws std::invalid_argument when apiVersion, kind or metadata.name is missing.
  void upsert(boost::json::value object);
  void erase(const ObjectRef& ref);
  // Drops every object of (apiVersion, kind): a reflector's relist replaces its kind wholesale.
  void clear_kind(std::string_view api_version, std::string_view kind);
  std::size_t size() const { return objects_.size(); }

  const boost::json::value* get(const ObjectRef& ref) const override;
  std::vector<const boost::json::value*> list(std::string_view api_version, std::string_view kind,
                                              std::string_view ns, const LabelSelector& selector = {}) const override;
  std::vector<const boost::json::value*> owned_by(std::string_view api_version, std::string_view kind,
                                                  std::string_view ns, std::string_view owner_uid) const override;

 private:
  std::map<ObjectRef, boost::json::value> objects_;  // ordered: kind ranges are contiguous
};

// Helpers for reading cached objects (missing fields read as empty).
ObjectRef object_ref_of(const boost::json::value& object);
Labels labels_of(const boost::json::value& object);
std::string uid_of(const boost::json::value& object);

}  // namespace nvcre::k8s
