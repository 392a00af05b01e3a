#include "actors/store.hpp"

#include "jsonkit/paths.hpp"

#include "actors/own_writes.hpp"
#include "k8s/cache_transform.hpp"

#include <caf/all.hpp>

#include <boost/json.hpp>

namespace nvcre::actors {

namespace json = boost::json;

ChangeNotice change_notice_for(const json::value& object, bool deleted) {
  ChangeNotice notice;
  notice.ref = k8s::object_ref_of(object);
  notice.deleted = deleted;
  const auto* owners = jsonkit::value_at(object, {"metadata", "ownerReferences"});
  if (owners != nullptr && owners->is_array()) {
    for (const auto& owner : owners->as_array()) {
      const auto* ow = owner.if_object();
      if (ow == nullptr) continue;
      OwnerLink link;
      if (const auto* v = ow->if_contains("apiVersion"); v != nullptr && v->is_string())
        link.api_version = v->as_string();
      if (const auto* v = ow->if_contains("kind"); v != nullptr && v->is_string())
        link.kind = v->as_string();
      if (const auto* v = ow->if_contains("name"); v != nullptr && v->is_string())
        link.name = v->as_string();
      if (const auto* v = ow->if_contains("controller"); v != nullptr && v->is_bool())
        link.controller = v->as_bool();
      notice.owners.push_back(std::move(link));
    }
  }
  return notice;
}

namespace {

// Sets the counts that moved (k8s::CacheSizePublisher).
void publish_cache_sizes(StoreState& state) {
  if (!state.config.metrics) return;
  const auto counts = state.config.cache->write(
      [&](k8s::ObjectCache& cache) { return state.cache_sizes.counts_to_set(cache); });
  for (const auto& [kind, count] : counts)
    state.config.metrics->set_cache_objects(kind.first, kind.second, count);
}

}  // namespace

store_actor::behavior_type store(store_actor::stateful_pointer<StoreState> self,
                                 StoreConfig config) {
  self->state.config = std::move(config);
  return {
      [=](apply_atom, std::vector<StoreDelta>& deltas) {
        auto& state = self->state;
        std::vector<ChangeNotice> notices;
        bool newly_synced = false;
        // Trimmed and described before taking the lock, which holds every reconcile's read off.
        for (auto& delta : deltas) {
          if (delta.type == StoreDelta::Type::Upsert) {
            k8s::trim_for_cache(delta.object);
            notices.push_back(change_notice_for(delta.object, false));
          } else if (delta.type == StoreDelta::Type::Delete) {
            notices.push_back(delta.object.is_null() ? ChangeNotice{delta.ref, {}, true}
                                                     : change_notice_for(delta.object, true));
          }
        }
        state.config.cache->write([&](k8s::ObjectCache& cache) {
          for (auto& delta : deltas) {
            switch (delta.type) {
              case StoreDelta::Type::Upsert:
                cache.upsert(std::move(delta.object));
                break;
              case StoreDelta::Type::Delete:
                if (delta.object.is_null()) {
                  cache.erase(delta.ref);
                } else {
                  cache.erase(delta.object);
                }
                break;
              case StoreDelta::Type::Synced:
                state.synced_kinds.emplace(delta.ref.api_version, delta.ref.kind);
                break;
            }
          }
        });
        publish_cache_sizes(state);
        if (!state.synced &&
            std::includes(state.synced_kinds.begin(), state.synced_kinds.end(),
                          state.config.expected_kinds.begin(), state.config.expected_kinds.end())) {
          state.synced = true;
          newly_synced = true;
          if (state.config.synced_flag) state.config.synced_flag->store(true);
        }
        for (const auto& subscriber : state.subscribers) {
          for (const auto& notice : notices) self->send(subscriber, changed_atom::value, notice);
          if (newly_synced) self->send(subscriber, synced_atom::value);
        }
      },
      // No change notice: the watch event of the same version brings one, and the writer itself
      // already knows what it wrote.
      [=](own_write_atom, k8s::ActionResult& answer) {
        if (record_own_write(*self->state.config.cache, self->state.config.scopes, answer.object))
          publish_cache_sizes(self->state);
        return std::move(answer);
      },
      [=](subscribe_atom, change_subscriber_actor subscriber) {
        if (self->state.synced) self->send(subscriber, synced_atom::value);
        self->state.subscribers.push_back(std::move(subscriber));
      },
      [](flush_atom) { return true; },
  };
}

}  // namespace nvcre::actors
