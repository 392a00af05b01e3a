#include "actors/reflector.hpp"

#include "actors/blocking_work.hpp"
#include "k8s/metrics.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {
namespace {

// Hands each batch of deltas from the list/watch thread to the store; a list after the first is
// a watch restart.
std::function<void(std::vector<k8s::Delta>)> store_sink(
    const ReflectorActorConfig& config, std::shared_ptr<std::atomic<std::uint64_t>> relists) {
  return [store = config.store, api_version = config.api_version, kind = config.kind,
          metrics = config.metrics, relists](std::vector<k8s::Delta> deltas) {
    bool replaced = std::any_of(deltas.begin(), deltas.end(), [](const k8s::Delta& d) {
      return d.type == k8s::DeltaType::Replaced;
    });
    if (replaced && relists->fetch_add(1) > 0 && metrics) metrics->watch_restart(kind);
    caf::anon_send(store, apply_atom::value, to_store_deltas(api_version, kind, std::move(deltas)));
  };
}

}  // namespace

std::vector<StoreDelta> to_store_deltas(const std::string& api_version, const std::string& kind,
                                        std::vector<k8s::Delta> deltas) {
  std::vector<StoreDelta> out;
  out.reserve(deltas.size());
  for (auto& delta : deltas) {
    StoreDelta d;
    switch (delta.type) {
      case k8s::DeltaType::Added:
      case k8s::DeltaType::Updated:
        d.type = StoreDelta::Type::Upsert;
        d.object = std::move(delta.object);
        break;
      case k8s::DeltaType::Deleted:
        d.type = StoreDelta::Type::Delete;
        d.ref = k8s::ref_from_key(api_version, kind, delta.key);
        d.object = std::move(delta.object);
        break;
      case k8s::DeltaType::Replaced:
        d.type = StoreDelta::Type::Synced;
        d.ref = k8s::ObjectRef{api_version, kind, "", ""};
        break;
    }
    out.push_back(std::move(d));
  }
  return out;
}

reflector_actor::behavior_type reflector(reflector_actor::stateful_pointer<ReflectorState> self,
                                         ReflectorActorConfig config) {
  auto relists = std::make_shared<std::atomic<std::uint64_t>>(0);
  auto runner = std::make_shared<k8s::ReflectorRunner>(*config.client, config.options,
                                                       store_sink(config, relists));
  self->state.runner = runner;
  self->state.relists = relists;
  run_blocking_loop(self->system(), "list/watch loop of " + config.kind, self->address(),
                    [runner, client = config.client] { runner->run(); });
  self->attach_functor([runner] { runner->stop(); });
  return {
      [=](stats_atom) { return self->state.relists->load(); },
      [=](relist_atom) {
        auto promise = self->make_response_promise<bool>();
        const auto id = self->state.next_relist++;
        self->state.relists_pending.emplace(id, promise);
        // A weak address: the runner must not keep its own actor alive.
        runner->request_relist([address = self->address(), id] {
          if (auto me = caf::actor_cast<reflector_actor>(address))
            caf::anon_send(me, relisted_atom::value, id);
        });
        return promise;
      },
      [=](relisted_atom, std::uint64_t id) {
        auto it = self->state.relists_pending.find(id);
        if (it == self->state.relists_pending.end()) return;
        auto promise = std::move(it->second);
        self->state.relists_pending.erase(it);
        // The loop sent the list's deltas to the store before telling us: once the store has
        // handled what came before the flush, the cache holds the list.
        self->request(config.store, caf::infinite, flush_atom::value)
            .then([promise](bool) mutable { promise.deliver(true); },
                  [promise](caf::error& error) mutable { promise.deliver(std::move(error)); });
      },
  };
}

reflector_actor spawn_reflector(caf::actor_system& system, ReflectorActorConfig config) {
  return system.spawn(reflector, std::move(config));
}

}  // namespace nvcre::actors
