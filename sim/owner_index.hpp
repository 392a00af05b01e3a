#pragma once
// The garbage collector's view of the store, kept up to date by every write: where each uid lives,
// which objects name each uid as an owner, and which uids changed in a way the collector decides
// on (existence, deletionTimestamp, finalizers, ownerReferences) since it last asked. With it a
// collection reads only the owner-linked neighbourhoods of what changed instead of every stored
// object: a full snapshot per DELETE made kube-sim's request thread the bottleneck of a busy run.
// Not thread-safe: the Store calls it under its lock.
#include <boost/json/value.hpp>

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace nvcre::sim {

// One entry of metadata.ownerReferences as the collector reads it (entries without a uid are
// skipped: they cannot be resolved).
struct OwnerLink {
  std::string uid;
  bool block = false;  // blockOwnerDeletion
};
std::vector<OwnerLink> owner_links(const boost::json::value& object);

// What the collector has to look at: the uids whose owner neighbourhoods changed, or everything
// (a Namespace changed: its objects live or go with it).
struct GcWork {
  std::vector<std::string> uids;
  bool everything = false;
  bool empty() const { return uids.empty() && !everything; }
};

class OwnerIndex {
 public:
  struct Location {
    std::string bucket;  // the Store's "group/resource"
    std::string ns;
    std::string name;
  };

  // One committed write in `bucket` (e.g. "/namespaces"): old_object null for a create,
  // new_object null when the object left the store.
  void record_write(const std::string& bucket, const boost::json::value* old_object,
                    const boost::json::value* new_object);

  bool has_work() const { return everything_ || !dirty_.empty(); }
  GcWork take_work();

  // The locations of every stored object linked to `uids` through owner references, in either
  // direction and transitively (each uid's connected component), each once. A uid no longer
  // stored still links the objects that name it as their owner.
  std::vector<Location> components(const std::vector<std::string>& uids) const;

 private:
  struct Entry {
    Location location;
    std::vector<std::string> owners;  // owner uids, as its ownerReferences name them
  };
  std::unordered_map<std::string, Entry> entries_;  // uid -> where it is, whom it names
  std::unordered_map<std::string, std::set<std::string>>
      dependents_;  // owner uid -> dependent uids
  std::set<std::string> dirty_;
  bool everything_ = false;
};

}  // namespace nvcre::sim
