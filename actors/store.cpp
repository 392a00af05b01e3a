#include "actors/store.hpp"

#include <caf/all.hpp>

#include <boost/json.hpp>

namespace nvcre::actors {
namespace {

namespace json = boost::json;

void strip_managed_fields(json::value& object) {
  if (auto* o = object.if_object()) {
    if (auto* meta = o->if_contains("metadata"); meta != nullptr && meta->is_object()) {
      meta->as_object().erase("managedFields");
    }
  }
}

// Keeps only `kept` of object[field] (an object), dropping the rest.
void keep_only(json::object& object, std::string_view field, std::initializer_list<std::string_view> kept) {
  auto* inner = object.if_contains(field);
  if (inner == nullptr || !inner->is_object()) return;
  json::object trimmed;
  for (std::string_view key : kept) {
    if (const auto* value = inner->as_object().if_contains(key)) trimmed[key] = *value;
  }
  *inner = std::move(trimmed);
}

// Pods and TrainJobs are watched, never reconciled, and most of their bytes are fields no
// controller reads (pod templates, container specs, kube-sim's log annotation), while a cached
// byte costs ~3-4 bytes of boost::json DOM. Like a controller-runtime cache transform, keep what
// the readers use: Pods: metadata without annotations, spec.nodeName, status (workflow/job_*.cpp,
// job_watches.cpp); TrainJobs: metadata, spec.suspend/managedBy, status (trainjob::workload_state).
void trim_unread_fields(json::value& object) {
  auto* o = object.if_object();
  if (o == nullptr) return;
  const auto* kind = o->if_contains("kind");
  if (kind == nullptr || !kind->is_string()) return;
  if (kind->as_string() == "Pod") {
    if (auto* meta = o->if_contains("metadata"); meta != nullptr && meta->is_object()) {
      meta->as_object().erase("annotations");
    }
    keep_only(*o, "spec", {"nodeName"});
  } else if (kind->as_string() == "TrainJob") {
    keep_only(*o, "spec", {"suspend", "managedBy"});
  }
}

}  // namespace

ChangeNotice change_notice_for(const json::value& object, bool deleted) {
  ChangeNotice notice;
  notice.ref = k8s::object_ref_of(object);
  notice.deleted = deleted;
  const auto* o = object.if_object();
  const auto* meta = o == nullptr ? nullptr : o->if_contains("metadata");
  const auto* owners = meta == nullptr || !meta->is_object() ? nullptr : meta->as_object().if_contains("ownerReferences");
  if (owners != nullptr && owners->is_array()) {
    for (const auto& owner : owners->as_array()) {
      const auto* ow = owner.if_object();
      if (ow == nullptr) continue;
      OwnerLink link;
      if (const auto* v = ow->if_contains("apiVersion"); v != nullptr && v->is_string()) link.api_version = v->as_string();
      if (const auto* v = ow->if_contains("kind"); v != nullptr && v->is_string()) link.kind = v->as_string();
      if (const auto* v = ow->if_contains("name"); v != nullptr && v->is_string()) link.name = v->as_string();
      if (const auto* v = ow->if_contains("controller"); v != nullptr && v->is_bool()) link.controller = v->as_bool();
      notice.owners.push_back(std::move(link));
    }
  }
  return notice;
}

store_actor::behavior_type store(store_actor::stateful_pointer<StoreState> self, StoreConfig config) {
  self->state.config = std::move(config);
  return {
      [=](apply_atom, std::vector<StoreDelta>& deltas) {
        auto& state = self->state;
        std::vector<ChangeNotice> notices;
        bool newly_synced = false;
        state.config.cache->write([&](k8s::ObjectCache& cache) {
          for (auto& delta : deltas) {
            switch (delta.type) {
              case StoreDelta::Type::Upsert:
                strip_managed_fields(delta.object);
                trim_unread_fields(delta.object);
                notices.push_back(change_notice_for(delta.object, false));
                cache.upsert(std::move(delta.object));
                break;
              case StoreDelta::Type::Delete:
                notices.push_back(delta.object.is_null() ? ChangeNotice{delta.ref, {}, true}
                                                         : change_notice_for(delta.object, true));
                cache.erase(delta.ref);
                break;
              case StoreDelta::Type::Synced:
                state.synced_kinds.emplace(delta.ref.api_version, delta.ref.kind);
                break;
            }
          }
        });
        if (!state.synced &&
            std::includes(state.synced_kinds.begin(), state.synced_kinds.end(), state.config.expected_kinds.begin(),
                          state.config.expected_kinds.end())) {
          state.synced = true;
          newly_synced = true;
          if (state.config.synced_flag) state.config.synced_flag->store(true);
        }
        for (const auto& subscriber : state.subscribers) {
          for (const auto& notice : notices) self->send(subscriber, changed_atom::value, notice);
          if (newly_synced) self->send(subscriber, synced_atom::value);
        }
      },
      [=](subscribe_atom, controller_actor subscriber) {
        if (self->state.synced) self->send(subscriber, synced_atom::value);
        self->state.subscribers.push_back(std::move(subscriber));
      },
  };
}

}  // namespace nvcre::actors
