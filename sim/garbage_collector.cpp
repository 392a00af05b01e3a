#include "sim/garbage_collector.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace nvcre::sim {

namespace json = boost::json;

std::optional<Propagation> parse_propagation(const std::string& text) {
  if (text == "Background") return Propagation::Background;
  if (text == "Foreground") return Propagation::Foreground;
  if (text == "Orphan") return Propagation::Orphan;
  return std::nullopt;
}

const char* propagation_finalizer(Propagation policy) {
  switch (policy) {
    case Propagation::Foreground:
      return kForegroundFinalizer;
    case Propagation::Orphan:
      return kOrphanFinalizer;
    case Propagation::Background:
      break;
  }
  return "";
}

namespace {

bool is_namespace(const ResourceType& type) {
  return type.group.empty() && type.resource == "namespaces";
}

GcAction action_for(GcAction::Kind kind, const GcObject& target) {
  GcAction action;
  action.kind = kind;
  action.type = target.type;
  action.ns = target.type.namespaced ? meta_string(target.object, "namespace") : std::string();
  action.name = meta_string(target.object, "name");
  action.resource_version = meta_string(target.object, "resourceVersion");
  return action;
}

}  // namespace

std::vector<GcAction> plan_garbage_collection(const std::vector<GcObject>& objects) {
  std::map<std::string, const GcObject*> by_uid;
  std::set<std::string> live_namespaces;
  for (const auto& entry : objects) {
    if (auto uid = meta_string(entry.object, "uid"); !uid.empty()) by_uid[uid] = &entry;
    if (is_namespace(entry.type) && !k8s::is_being_deleted(entry.object))
      live_namespaces.insert(meta_string(entry.object, "name"));
  }

  // The owner a reference resolves to, or nullptr when it is dangling (absent or invalid).
  auto resolve = [&](const GcObject& dependent, const std::string& uid) -> const GcObject* {
    auto it = by_uid.find(uid);
    if (it == by_uid.end()) return nullptr;
    const GcObject* owner = it->second;
    if (owner->type.namespaced &&
        (!dependent.type.namespaced ||
         meta_string(owner->object, "namespace") != meta_string(dependent.object, "namespace")))
      return nullptr;
    return owner;
  };

  // owner uid -> (dependent, blockOwnerDeletion), only for valid references.
  std::map<std::string, std::vector<std::pair<const GcObject*, bool>>> dependents;
  for (const auto& entry : objects)
    for (const auto& ref : owner_links(entry.object))
      if (resolve(entry, ref.uid)) dependents[ref.uid].push_back({&entry, ref.block});
  auto dependents_of =
      [&](const GcObject& owner) -> const std::vector<std::pair<const GcObject*, bool>>& {
    static const std::vector<std::pair<const GcObject*, bool>> none;
    auto it = dependents.find(meta_string(owner.object, "uid"));
    return it == dependents.end() ? none : it->second;
  };

  std::vector<GcAction> actions;
  for (const auto& entry : objects) {
    const bool is_deleting = k8s::is_being_deleted(entry.object);
    const std::string uid = meta_string(entry.object, "uid");

    if (is_deleting && k8s::has_finalizer(entry.object, kOrphanFinalizer)) {
      const auto& deps = dependents_of(entry);
      for (const auto& [dependent, block] : deps) {
        (void)block;
        auto action = action_for(GcAction::Kind::RemoveOwnerReferences, *dependent);
        action.owner_uids = {uid};
        actions.push_back(std::move(action));
      }
      if (deps.empty()) {
        auto action = action_for(GcAction::Kind::RemoveFinalizer, entry);
        action.finalizer = kOrphanFinalizer;
        actions.push_back(std::move(action));
      }
      continue;  // an owner being orphaned is not also collected in this pass
    }

    if (is_deleting && k8s::has_finalizer(entry.object, kForegroundFinalizer)) {
      const auto& deps = dependents_of(entry);
      const bool blocked =
          std::any_of(deps.begin(), deps.end(), [](const auto& d) { return d.second; });
      if (!blocked) {
        auto action = action_for(GcAction::Kind::RemoveFinalizer, entry);
        action.finalizer = kForegroundFinalizer;
        actions.push_back(std::move(action));
      }
      continue;
    }
    if (is_deleting) continue;  // already going; its own finalizers decide when

    if (entry.type.namespaced &&
        !live_namespaces.contains(meta_string(entry.object, "namespace"))) {
      actions.push_back(action_for(GcAction::Kind::Delete, entry));
      continue;
    }

    auto refs = owner_links(entry.object);
    if (refs.empty()) continue;
    std::vector<std::string> dangling, waiting;
    bool solid = false;
    for (const auto& ref : refs) {
      const GcObject* owner = resolve(entry, ref.uid);
      if (!owner) {
        dangling.push_back(ref.uid);
      } else if (k8s::is_being_deleted(owner->object) &&
                 k8s::has_finalizer(owner->object, kForegroundFinalizer)) {
        waiting.push_back(ref.uid);
      } else {
        solid = true;
      }
    }
    if (!solid) {
      auto action = action_for(GcAction::Kind::Delete, entry);
      if (!waiting.empty() && !dependents_of(entry).empty())
        action.propagation = Propagation::Foreground;
      actions.push_back(std::move(action));
    } else if (!dangling.empty() || !waiting.empty()) {
      auto action = action_for(GcAction::Kind::RemoveOwnerReferences, entry);
      action.owner_uids = std::move(dangling);
      action.owner_uids.insert(action.owner_uids.end(), waiting.begin(), waiting.end());
      actions.push_back(std::move(action));
    }
  }
  return actions;
}

namespace {

// Applies one action; false when it lost a race (the object changed or went meanwhile).
bool apply(Store& store, const GcAction& action) {
  try {
    if (action.kind == GcAction::Kind::Delete) {
      store.remove(action.type, action.ns, action.name, false, action.resource_version,
                   propagation_finalizer(action.propagation));
      return true;
    }
    json::value object = store.get(action.type, action.ns, action.name);
    if (meta_string(object, "resourceVersion") != action.resource_version) return false;
    auto& meta = object.as_object()["metadata"].as_object();
    if (action.kind == GcAction::Kind::RemoveOwnerReferences) {
      json::array kept;
      for (const auto& ref : meta["ownerReferences"].as_array()) {
        const auto* uid = ref.is_object() ? ref.as_object().if_contains("uid") : nullptr;
        const bool drop = uid && uid->is_string() &&
                          std::find(action.owner_uids.begin(), action.owner_uids.end(),
                                    std::string(uid->as_string())) != action.owner_uids.end();
        if (!drop) kept.push_back(ref);
      }
      if (kept.empty()) {
        meta.erase("ownerReferences");
      } else {
        meta["ownerReferences"] = std::move(kept);
      }
    } else {
      json::array kept;
      for (const auto& f : meta["finalizers"].as_array())
        if (!(f.is_string() && f.as_string() == action.finalizer)) kept.push_back(f);
      if (kept.empty()) {
        meta.erase("finalizers");
      } else {
        meta["finalizers"] = std::move(kept);
      }
    }
    store.update(action.type, action.ns, action.name, std::move(object));
    return true;
  } catch (const ApiError&) {
    return false;  // 404 / 409: re-planned from a fresh snapshot
  }
}

}  // namespace

namespace {

// The collector reads metadata only; copying just that keeps a collection cheap next to objects
// with large specs and statuses (Nodes, Pods, TrainJobs).
json::value metadata_only(const json::value& object) {
  const auto* fields = jsonkit::object_at(object, {"metadata"});
  json::object kept;
  if (fields != nullptr) {
    for (const char* key : {"name", "namespace", "uid", "resourceVersion", "deletionTimestamp",
                            "finalizers", "ownerReferences"}) {
      if (const auto* value = fields->if_contains(key)) kept[key] = *value;
    }
  }
  return json::object{{"metadata", std::move(kept)}};
}

}  // namespace

GcReport collect_garbage(Store& store, const std::vector<ResourceType>& types, GcScope scope,
                         std::size_t max_passes) {
  std::vector<ResourceType> unique;
  std::map<std::string, ResourceType> by_bucket;  // the Store's "group/resource"
  for (const auto& type : types)
    if (by_bucket.emplace(type.group + "/" + type.resource, type).second) unique.push_back(type);
  const auto namespaces = std::find_if(unique.begin(), unique.end(),
                                       [](const ResourceType& t) { return is_namespace(t); });

  GcReport report;
  for (std::size_t round = 0; round < max_passes; ++round) {
    // Only what changed since the last round, with everything owner-linked to it: the planner's
    // decision for an object reads its owners, its dependents and its namespace, nothing else.
    GcWork work = store.take_gc_work();
    if (scope == GcScope::Everything) work.everything = true;
    if (work.empty()) break;
    std::vector<GcObject> snapshot;
    std::set<std::string> taken;
    auto take = [&](const ResourceType& type, const json::value& object) {
      if (taken.insert(meta_string(object, "uid")).second)
        snapshot.push_back({type, metadata_only(object)});
    };
    if (work.everything) {
      for (const auto& type : unique)
        store.visit(type, [&](const json::value& object) { take(type, object); });
    } else {
      if (namespaces != unique.end())
        store.visit(*namespaces, [&](const json::value& object) { take(*namespaces, object); });
      store.visit_owner_components(work.uids,
                                   [&](const std::string& bucket, const json::value& object) {
                                     if (auto it = by_bucket.find(bucket); it != by_bucket.end())
                                       take(it->second, object);
                                   });
    }
    report.examined += snapshot.size();
    auto actions = plan_garbage_collection(snapshot);
    if (actions.empty()) break;
    ++report.passes;
    bool progressed = false;
    for (const auto& action : actions) {
      if (!apply(store, action)) continue;  // lost a race: that write is the next round's work
      progressed = true;
      switch (action.kind) {
        case GcAction::Kind::Delete:
          ++report.deleted;
          break;
        case GcAction::Kind::RemoveOwnerReferences:
          ++report.references_removed;
          break;
        case GcAction::Kind::RemoveFinalizer:
          ++report.finalizers_removed;
          break;
      }
    }
    if (!progressed) break;
  }
  return report;
}

}  // namespace nvcre::sim
