#pragma once
// kube-sim's garbage collector: what kube-controller-manager's garbagecollector and namespace
// controllers do, run synchronously by the ApiServer after every request that left the store
// with collector work (a write that changed an object's existence, deletionTimestamp, finalizers
// or ownerReferences: sim/owner_index.hpp), so tests see a settled store when the request
// returns. No background thread, no clock.
//
// Semantics (k8s.io/kubernetes/pkg/controller/garbagecollector, our own words):
//  - An owner reference is resolved by uid. It is *dangling* when no stored object has that uid,
//    or when it names a namespaced owner in another namespace (or from a cluster-scoped
//    dependent): such references are invalid and treated as absent.
//  - It is *waiting* when the owner is being deleted in the foreground (deletionTimestamp plus the
//    `foregroundDeletion` finalizer); otherwise it is *solid* (an owner that is still terminating
//    with other finalizers is solid: background dependents go only once the owner is gone).
//  - A dependent not yet being deleted whose references are all dangling or waiting is deleted:
//    in the foreground when one owner is waiting and the dependent has dependents of its own,
//    in the background otherwise. With at least one solid owner, only the dangling and waiting
//    references are removed.
//  - An owner in foreground deletion loses `foregroundDeletion` (and so goes, when that was its
//    last finalizer) once no dependent with `blockOwnerDeletion: true` references it.
//  - An owner with the `orphan` finalizer first has its uid removed from every dependent's
//    ownerReferences, then loses the finalizer.
//  - Namespaced objects in a namespace that is gone (or terminating) are deleted (background).
//  - Finalizers on a dependent only delay that dependent (and a foreground owner it blocks).
#include "sim/store.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nvcre::sim {

enum class Propagation { Background, Foreground, Orphan };
// "Background" / "Foreground" / "Orphan"; nullopt for anything else.
std::optional<Propagation> parse_propagation(const std::string& text);
// The finalizer a DELETE with this policy adds ("" for Background).
const char* propagation_finalizer(Propagation policy);

inline constexpr const char* kForegroundFinalizer = "foregroundDeletion";
inline constexpr const char* kOrphanFinalizer = "orphan";

// One stored object with its type, as the collector sees it.
struct GcObject {
  ResourceType type;
  boost::json::value object;
};

struct GcAction {
  enum class Kind { Delete, RemoveOwnerReferences, RemoveFinalizer };
  Kind kind = Kind::Delete;
  ResourceType type;
  std::string ns;
  std::string name;
  std::string resource_version;  // precondition: the action applies to this version only
  Propagation propagation = Propagation::Background;  // Delete
  std::vector<std::string> owner_uids;                // RemoveOwnerReferences
  std::string finalizer;                              // RemoveFinalizer
};

// Pure: the next actions for a snapshot of every stored object (namespaces included).
std::vector<GcAction> plan_garbage_collection(const std::vector<GcObject>& objects);

struct GcReport {
  std::size_t passes = 0;
  std::size_t examined = 0;            // objects snapshotted over all rounds
  std::size_t deleted = 0;             // Delete actions applied
  std::size_t references_removed = 0;  // RemoveOwnerReferences actions applied
  std::size_t finalizers_removed = 0;  // RemoveFinalizer actions applied
};

// Which objects a collection reads. Changed: the store's GC work (what changed since the last
// collection) with those objects' owner-linked components, plus every Namespace. Everything:
// every object of `types`, as the collector did before the store kept its owner index; the
// reference the Changed collection is tested against.
enum class GcScope { Changed, Everything };

// Snapshots the metadata of the objects in `scope` (one entry per group/resource of `types` is
// enough; duplicates are ignored; a Namespace change widens a round to everything), plans, applies
// and repeats until nothing is left to do (at most `max_passes`). Actions that lost a race (404,
// 409) are skipped: the write that beat them is the next round's work.
GcReport collect_garbage(Store& store, const std::vector<ResourceType>& types,
                         GcScope scope = GcScope::Changed, std::size_t max_passes = 64);

}  // namespace nvcre::sim
