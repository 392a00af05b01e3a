#pragma once
// kube-sim's storage: what etcd plus the generic registry give a real API server, without HTTP.
// Objects live per (group, resource, namespace, name) and share one global, monotonically
// increasing resourceVersion. The store fills uid / creationTimestamp / generation, enforces
// optimistic concurrency, the status-subresource split and finalizer-driven deletion, and keeps a
// bounded event log for watches (a resourceVersion older than the retained window -> 410 Gone).
// Every failure is an ApiError carrying kube's code, reason and message. Thread-safe.
#include "sim/api_error.hpp"
#include "sim/owner_index.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace nvcre::sim {

struct ResourceType {
  std::string group;     // "" for core
  std::string version;   // "v1", "v1alpha1"
  std::string resource;  // plural, e.g. "certifications"
  std::string kind;      // "Certification"
  bool namespaced = true;
  bool status_subresource = false;
  // Built-in kinds accept a PUT without metadata.resourceVersion; custom resources do not.
  bool allow_unconditional_update = true;

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

enum class EventType { Added, Modified, Deleted };
const char* to_string(EventType type);

// A stored object is never changed in place: a write stores a new one. Readers (the event log,
// watches, the simulated Trainer) share it instead of copying it under the store's lock.
using StoredObject = std::shared_ptr<const boost::json::value>;

// The JSON text of an event's object, made by the first watch that sends it.
struct SerializedOnce {
  std::once_flag once;
  std::string text;
};

struct WatchEvent {
  std::uint64_t resource_version = 0;
  EventType type = EventType::Added;
  std::string group;
  std::string resource;
  std::string ns;
  StoredObject object;
  std::shared_ptr<SerializedOnce> serialized =
      std::make_shared<SerializedOnce>();  // shared by copies

  // The object serialized, once for every watch that sends it (thread-safe).
  const std::string& object_json() const;
};

struct ListResult {
  std::vector<boost::json::value> items;
  std::uint64_t resource_version = 0;
  std::string continue_token;  // empty: last page
  std::int64_t remaining_item_count = 0;
};

struct StoreOptions {
  std::function<std::chrono::system_clock::time_point()> clock;  // default: system_clock::now
  std::size_t retained_events = 10000;  // watch window: older resourceVersions answer 410 Gone
  std::uint64_t seed = 0;               // uid generator seed; 0 = random
};

// Called with the object as it will be stored (metadata filled in, status split applied) and,
// for updates, the stored object; throws ApiError (e.g. 422) to reject. Runs under the store's
// lock, after the conflict check and before commit, as kube's BeforeCreate/BeforeUpdate do.
using Admit = std::function<void(const boost::json::value* old_object, boost::json::value& object)>;
// A list / watch filter on the stored object.
using Filter = std::function<bool(const boost::json::value& object)>;

class Store {
 public:
  explicit Store(StoreOptions options = {});

  boost::json::value create(const ResourceType& type, const std::string& ns,
                            boost::json::value object, const Admit& admit = {},
                            bool dry_run = false);

  boost::json::value get(const ResourceType& type, const std::string& ns,
                         const std::string& name) const;
  std::optional<boost::json::value> find(const ResourceType& type, const std::string& ns,
                                         const std::string& name) const;
  // The stored object itself, shared (nullptr when absent): for readers that only look at it.
  StoredObject find_shared(const ResourceType& type, const std::string& ns,
                           const std::string& name) const;

  // ns empty: every namespace. Items in (namespace, name) order; `limit` 0 = all.
  ListResult list(const ResourceType& type, const std::string& ns, const Filter& filter = {},
                  std::size_t limit = 0, const std::string& continue_token = {}) const;

  // Calls fn on every stored object of `type` (all namespaces), under the store's lock and without
  // copying them: for readers that need a small part of each object (the garbage collector).
  void visit(const ResourceType& type,
             const std::function<void(const boost::json::value&)>& fn) const;
  // Every stored object of `type` (all namespaces, in (namespace, name) order), shared, not copied:
  // a reader that works on many objects for a while holds the store's lock only to take them.
  std::vector<StoredObject> snapshot(const ResourceType& type) const;

  enum class UpdateKind { Main, Status };
  // A PUT of `object` (already patched by the caller for PATCH). A stale non-empty
  // metadata.resourceVersion -> 409 Conflict. Main updates keep the stored status (when the type
  // has a status subresource); status updates keep everything but status. Removing the last
  // finalizer of an object being deleted deletes it.
  boost::json::value update(const ResourceType& type, const std::string& ns,
                            const std::string& name, boost::json::value object,
                            UpdateKind kind = UpdateKind::Main, const Admit& admit = {},
                            bool dry_run = false);

  struct DeleteResult {
    boost::json::value object;  // the deleted object, or the one now marked for deletion
    bool deleted = false;       // false: finalizers pending, deletionTimestamp set
  };
  // `add_finalizer` (e.g. "foregroundDeletion" or "orphan" for those propagation policies) is
  // added, when missing, in the same write that sets deletionTimestamp.
  DeleteResult remove(const ResourceType& type, const std::string& ns, const std::string& name,
                      bool dry_run = false, const std::optional<std::string>& precondition_rv = {},
                      const std::string& add_finalizer = {},
                      const std::optional<std::string>& precondition_uid = std::nullopt);

  // What changed for the garbage collector since it last took the work (sim/owner_index.hpp).
  bool has_gc_work() const;
  GcWork take_gc_work();
  // Calls fn with the bucket ("group/resource") and object of everything owner-linked to `uids`
  // (their connected components), under the store's lock and without copying.
  void visit_owner_components(
      const std::vector<std::string>& uids,
      const std::function<void(const std::string& bucket, const boost::json::value&)>& fn) const;

  // Deletes every object of a type at once (a CRD going away); emits DELETED events.
  void remove_all(const ResourceType& type);

  // Events with resourceVersion > rv for `type` (and `ns` unless empty), oldest first.
  // rv older than the retained window -> ApiError 410 Expired "too old resource version".
  std::vector<WatchEvent> events_since(std::uint64_t rv, const ResourceType& type,
                                       const std::string& ns) const;

  std::uint64_t resource_version() const;
  // The resourceVersion of the latest change to any object of `type` (0: none yet): lets a reader
  // keep a copy of a kind until it changes.
  std::uint64_t last_change(const ResourceType& type) const;
  // Drops the whole event log (a forced compaction: every older watch resume gets 410).
  void compact();
  // compact(), and past the current resourceVersion too: the version moves on by one with no
  // event (as etcd's revision moves on with writes elsewhere), so a resume from any version served
  // so far, the latest included, gets 410, and a list made afterwards is at the new version.
  void compact_all();

  // Invoked (outside the lock) after every committed change, with the type that changed.
  void set_on_change(std::function<void(const ResourceType&)> callback);
  // Invoked under the store's lock with each event as it is committed, before any watch can send
  // it: lets an in-process observer (the manager benchmark) time commits. Keep it cheap.
  void set_on_commit(std::function<void(const WatchEvent&)> callback);
  // "group/resource": one key per type, for whoever tracks changes by type.
  static std::string bucket_key(const ResourceType& type) {
    return type.group + "/" + type.resource;
  }

  std::string now_rfc3339() const;
  // The store's clock (StoreOptions::clock): what kube-sim's kubelet stamps log lines with.
  std::chrono::system_clock::time_point now() const;

 private:
  using ObjectKey = std::pair<std::string, std::string>;  // namespace, name
  using Bucket = std::map<ObjectKey, StoredObject>;

  std::string new_uid();
  void record(EventType type, const ResourceType& rt, const std::string& ns, StoredObject object);
  void trim_events();
  void notify(const ResourceType& type);

  StoreOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
  std::map<std::string, std::uint64_t> last_change_;  // bucket -> rv of its latest change
  std::uint64_t rv_ = 1;
  std::uint64_t compacted_rv_ = 0;  // events with rv <= this are gone
  std::deque<WatchEvent> events_;
  std::mt19937_64 rng_;
  std::function<void(const ResourceType&)> on_change_;
  std::function<void(const WatchEvent&)> on_commit_;
  OwnerIndex owner_index_;
};

// metadata.<key> as a string, "" when absent.
std::string meta_string(const boost::json::value& object, const char* key);

}  // namespace nvcre::sim
