#include "sim/owner_index.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <deque>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

const json::object* metadata(const json::value* object) {
  return object == nullptr ? nullptr : jsonkit::object_at(*object, {"metadata"});
}

const json::value* field(const json::object* meta, const char* key) {
  return meta == nullptr ? nullptr : meta->if_contains(key);
}

bool same_field(const json::object* a, const json::object* b, const char* key) {
  const json::value* x = field(a, key);
  const json::value* y = field(b, key);
  if (x == nullptr || y == nullptr) return x == y;
  return *x == *y;
}

}  // namespace

std::vector<OwnerLink> owner_links(const json::value& object) {
  std::vector<OwnerLink> out;
  const json::value* refs = field(metadata(&object), "ownerReferences");
  if (refs == nullptr || !refs->is_array()) return out;
  for (const auto& ref : refs->get_array()) {
    const auto* r = ref.if_object();
    const auto* uid = r == nullptr ? nullptr : r->if_contains("uid");
    if (uid == nullptr || !uid->is_string() || uid->get_string().empty()) continue;
    const auto* block = r->if_contains("blockOwnerDeletion");
    out.push_back({std::string(uid->get_string()),
                   block != nullptr && block->is_bool() && block->get_bool()});
  }
  return out;
}

void OwnerIndex::record_write(const std::string& bucket, const json::value* old_object,
                              const json::value* new_object) {
  const json::object* before = metadata(old_object);
  const json::object* after = metadata(new_object);
  // What the collector decides on; a spec, label or status write changes none of it.
  const bool relevant =
      before == nullptr || after == nullptr || !same_field(before, after, "deletionTimestamp") ||
      !same_field(before, after, "finalizers") || !same_field(before, after, "ownerReferences");
  if (!relevant) return;
  const std::string uid = jsonkit::string_of(after != nullptr ? after : before, "uid");
  if (uid.empty()) return;
  if (bucket == "/namespaces") everything_ = true;

  dirty_.insert(uid);
  if (auto it = entries_.find(uid); it != entries_.end()) {
    for (const auto& owner : it->second.owners) {
      dirty_.insert(owner);  // a foreground owner may have been waiting for this dependent
      auto dependents = dependents_.find(owner);
      if (dependents == dependents_.end()) continue;
      dependents->second.erase(uid);
      if (dependents->second.empty()) dependents_.erase(dependents);
    }
    entries_.erase(it);
  }
  if (after == nullptr) return;
  Entry entry{{bucket, jsonkit::string_of(after, "namespace"), jsonkit::string_of(after, "name")},
              {}};
  for (auto& link : owner_links(*new_object)) entry.owners.push_back(std::move(link.uid));
  for (const auto& owner : entry.owners) {
    dirty_.insert(owner);
    dependents_[owner].insert(uid);
  }
  entries_.emplace(uid, std::move(entry));
}

GcWork OwnerIndex::take_work() {
  GcWork work{{dirty_.begin(), dirty_.end()}, everything_};
  dirty_.clear();
  everything_ = false;
  return work;
}

std::vector<OwnerIndex::Location> OwnerIndex::components(
    const std::vector<std::string>& uids) const {
  std::vector<Location> out;
  std::set<std::string> seen;
  std::deque<std::string> queue(uids.begin(), uids.end());
  while (!queue.empty()) {
    std::string uid = std::move(queue.front());
    queue.pop_front();
    if (!seen.insert(uid).second) continue;
    if (auto it = entries_.find(uid); it != entries_.end()) {
      out.push_back(it->second.location);
      queue.insert(queue.end(), it->second.owners.begin(), it->second.owners.end());
    }
    if (auto it = dependents_.find(uid); it != dependents_.end())
      queue.insert(queue.end(), it->second.begin(), it->second.end());
  }
  return out;
}

}  // namespace nvcre::sim
