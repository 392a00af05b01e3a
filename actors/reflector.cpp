#include "actors/reflector.hpp"

#include "actors/supervisor.hpp"
#include "manager/metrics.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <thread>

namespace nvcre::actors {
namespace {

k8s::ObjectRef ref_from_key(const std::string& api_version, const std::string& kind, const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return k8s::ObjectRef{api_version, kind, "", key};
  return k8s::ObjectRef{api_version, kind, key.substr(0, slash), key.substr(slash + 1)};
}

struct ReflectorState {
  std::shared_ptr<k8s::ReflectorRunner> runner;
  static inline const char* name = "reflector";
};

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
        d.ref = ref_from_key(api_version, kind, delta.key);
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

reflector_actor spawn_reflector(caf::actor_system& system, ReflectorActorConfig config) {
  return system.spawn([config = std::move(config)](reflector_actor::stateful_pointer<ReflectorState> self)
                          -> reflector_actor::behavior_type {
    auto store = config.store;
    auto api_version = config.api_version;
    auto kind = config.kind;
    auto metrics = config.metrics;
    auto relists = std::make_shared<std::atomic<std::uint64_t>>(0);
    auto sink = [store, api_version, kind, metrics, relists](std::vector<k8s::Delta> deltas) {
      bool replaced = std::any_of(deltas.begin(), deltas.end(),
                                  [](const k8s::Delta& d) { return d.type == k8s::DeltaType::Replaced; });
      if (replaced && relists->fetch_add(1) > 0 && metrics) metrics->watch_restart(kind);
      caf::anon_send(store, apply_atom::value, to_store_deltas(api_version, kind, std::move(deltas)));
    };
    auto runner = std::make_shared<k8s::ReflectorRunner>(*config.client, config.options, std::move(sink));
    self->state.runner = runner;
    config.threads->start([runner, client = config.client, kind, actor = self->address()] {
      try {
        runner->run();
      } catch (const std::exception& error) {
        spdlog::error("reflector for {} stopped: {}", kind, error.what());
        fail_actor(actor, std::string("list/watch loop stopped: ") + error.what());
      }
    });
    self->attach_functor([runner] { runner->stop(); });
    return {
        [=](stats_atom) { return relists->load(); },
    };
  });
}

}  // namespace nvcre::actors
