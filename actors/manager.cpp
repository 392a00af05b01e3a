#include "actors/manager.hpp"

#include "actors/api_client.hpp"
#include "actors/catalog_resolver.hpp"
#include "actors/controller.hpp"
#include "actors/event_recorder.hpp"
#include "actors/gauge_projector.hpp"
#include "actors/workflow_assembler.hpp"
#include "actors/leader_elector.hpp"
#include "actors/platform_detector.hpp"
#include "actors/reflector.hpp"
#include "actors/store.hpp"
#include "actors/supervisor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <string>

namespace nvcre::actors {

// A top-level actor under the name supervision reports it by.
struct TopLevelActor {
  std::string name;
  caf::actor handle;
};

// The first death outside stop(), written by the supervisor's callback, read by /readyz.
struct FailureRecord {
  mutable std::mutex mutex;
  std::optional<std::string> first;
};

struct Manager::Impl {
  ManagerOptions options;
  std::unique_ptr<caf::actor_system_config> config;
  std::unique_ptr<caf::actor_system> system;
  std::shared_ptr<std::atomic<bool>> synced = std::make_shared<std::atomic<bool>>(false);
  std::vector<TopLevelActor> actors;  // every top-level actor, stopped in reverse order
  std::optional<supervisor_actor> supervisor;
  std::shared_ptr<FailureRecord> failure = std::make_shared<FailureRecord>();
  std::optional<leader_elector_actor> elector;
  std::vector<std::shared_ptr<k8s::RestClient>>
      clients;  // shut down first on stop (not the elector's)
  bool stopped = false;

  // Names and monitors a top-level actor; the stop order is the order of these calls, reversed.
  template <class Handle>
  void supervise(std::string name, const Handle& handle) {
    auto actor = caf::actor_cast<caf::actor>(handle);
    caf::anon_send(*supervisor, supervise_atom::value, name, actor);
    actors.push_back(TopLevelActor{std::move(name), std::move(actor)});
  }
};

namespace {

// One controller per reconciled kind, each subscribed to the store's changes.
std::vector<controller_actor> spawn_controllers(caf::actor_system& system, const ManagerOptions& o,
                                                std::shared_ptr<SharedCache> cache,
                                                store_actor the_store, api_client_actor api,
                                                event_recorder_actor recorder,
                                                const ServiceActors& services) {
  std::vector<controller_actor> controllers;
  for (const auto& spec : o.controllers) {
    ControllerConfig cc;
    cc.name = spec.name;
    cc.api_version = spec.api_version;
    cc.kind = spec.kind;
    cc.reconcile = spec.reconcile;
    cc.keys_for = for_and_owns(spec.kind, spec.owned_kinds);
    cc.extra_keys_for = spec.extra_keys_for;
    cc.cache = cache;
    cc.api = api;
    cc.recorder = recorder;
    cc.services = services;
    const bool measurement = spec.controller_class == ControllerClass::Measurement;
    cc.max_concurrent =
        measurement ? o.measurement_max_concurrent_reconciles : o.max_concurrent_reconciles;
    // Longer than a default sample interval, so the sampling memo usually survives a sample.
    if (measurement) cc.memo_kept = std::chrono::minutes(5);
    cc.leading = !o.leader_elect;
    cc.metrics = o.metrics;
    auto c = system.spawn(controller, std::move(cc));
    caf::anon_send(the_store, subscribe_atom::value, change_subscriber_actor{c});
    controllers.push_back(c);
  }
  return controllers;
}

// The reflector that lists and watches one kind into the store, on its own client.
reflector_actor spawn_watch(caf::actor_system& system, const ManagerOptions& o,
                            const WatchSpec& watch, std::shared_ptr<k8s::RestClient> client,
                            store_actor the_store) {
  ReflectorActorConfig rc;
  rc.client = std::move(client);
  rc.options.resource = watch.resource;
  rc.options.ns = watch.resource.namespace_scoped ? o.watch_namespace : "";
  rc.options.label_selector = watch.label_selector;
  rc.options.max_watch_timeout = o.max_watch_timeout;
  // Its own jitter: with one seed for all, every reflector (and every replica) retried and timed
  // its watches out in the same instant, and a forced relist hit the API server all at once.
  rc.options.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^
                    std::hash<std::string>{}(watch.api_version + "/" + watch.kind);
  rc.api_version = watch.api_version;
  rc.kind = watch.kind;
  rc.store = the_store;
  rc.metrics = o.metrics;
  return spawn_reflector(system, std::move(rc));
}

}  // namespace

Manager::Manager(ManagerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
}

Manager::~Manager() { stop(); }

void Manager::start() {
  auto& o = impl_->options;
  impl_->config = std::make_unique<caf::actor_system_config>();
  // Idle workers wait on a condition variable. CAF's default work-stealing workers poll with 50 us
  // sleeps, which was most of the manager's CPU (perf, bench/manager_bench.cpp) and, on a busy
  // node, took cores from the reconciles and the API server.
  impl_->config->set("scheduler.policy", caf::atom("sharing"));
  if (o.scheduler_threads > 0) impl_->config->set("scheduler.max-threads", o.scheduler_threads);
  impl_->system = std::make_unique<caf::actor_system>(*impl_->config);
  auto& system = *impl_->system;
  impl_->supervisor = spawn_supervisor(
      system, SupervisorConfig{[failure = impl_->failure, on_down = o.on_actor_down](
                                   const std::string& name, const std::string& reason) {
        {
          std::lock_guard lock(failure->mutex);
          if (!failure->first) failure->first = name + " exited: " + reason;
        }
        if (on_down) on_down(name, reason);
      }});

  k8s::RestClientOptions client_options;
  client_options.user_agent = o.user_agent;
  // A refused request is otherwise only a retried error: name the permission that is missing.
  client_options.on_refused = [](const std::string& method, const std::string& path,
                                 const k8s::ApiError& error, std::string_view request_body) {
    spdlog::warn("{}", k8s::describe_refusal(method, path, error, request_body));
  };
  auto api_client = std::make_shared<k8s::RestClient>(o.client, client_options);
  k8s::RestClientOptions watch_client_options = client_options;
  watch_client_options.max_retries = 0;  // the reflectors back off themselves, interruptibly
  watch_client_options.timeout =
      std::chrono::minutes(11);  // longer than any watch timeout we ask for

  auto cache = std::make_shared<SharedCache>();
  StoreConfig store_config{cache, {}, impl_->synced, {}, o.metrics};
  for (const auto& watch : o.watches) {
    store_config.expected_kinds.emplace(watch.api_version, watch.kind);
    store_config.scopes.push_back({watch.api_version, watch.kind,
                                   watch.resource.namespace_scoped ? o.watch_namespace : "",
                                   k8s::LabelSelector::parse(watch.label_selector)});
  }
  auto the_store = system.spawn(store, std::move(store_config));

  auto api =
      spawn_api_client(system, ApiClientConfig{api_client, o.metrics, o.api_workers, the_store});
  // Events get their own client, hence their own client-side rate limit, as controller-runtime's
  // recorder does: lifecycle events must not queue ahead of the status writes they describe.
  auto event_client = std::make_shared<k8s::RestClient>(o.client, client_options);
  auto event_api =
      spawn_api_client(system, ApiClientConfig{event_client, o.metrics, 1, std::nullopt});
  impl_->clients = {api_client, event_client};
  auto recorder = spawn_event_recorder(
      system, EventRecorderConfig{event_api, k8s::EventSource{"nvcre", o.instance}});

  // The build services. Subscribed before any reflector runs, the detector sees every Node.
  // They answer refusals as values and map their own exceptions to error replies, so a failure
  // in one costs the asking reconcile a retry with backoff, never the manager.
  ServiceActors services{spawn_platform_detector(system, PlatformDetectorConfig{cache}), {}, {}};
  for (std::size_t i = 0; i < o.build_service_pool; ++i) {
    services.resolvers.push_back(spawn_catalog_resolver(system));
    services.assemblers.push_back(spawn_workflow_assembler(system));
  }
  caf::anon_send(the_store, subscribe_atom::value, change_subscriber_actor{services.detector});

  std::optional<change_subscriber_actor> gauges;
  if (o.metrics && !o.gauge_projections.empty()) {
    gauges = spawn_gauge_projector(system, {cache, o.metrics, o.gauge_projections});
    caf::anon_send(the_store, subscribe_atom::value, *gauges);
  }

  auto controllers = spawn_controllers(system, o, cache, the_store, api, recorder, services);
  std::vector<reflector_actor> reflectors;
  for (const auto& watch : o.watches) {
    auto watch_client = std::make_shared<k8s::RestClient>(o.client, watch_client_options);
    impl_->clients.push_back(watch_client);
    reflectors.push_back(spawn_watch(system, o, watch, watch_client, the_store));
  }

  if (o.leader_elect) {
    LeaderElectorActorConfig lc;
    lc.client = std::make_shared<k8s::RestClient>(o.client, client_options);
    lc.election = o.election;
    lc.controllers = controllers;
    lc.reflectors = reflectors;
    lc.on_lost = o.on_leadership_lost;
    lc.abandon_on_exit = o.abandon_lease_on_stop;
    impl_->elector = spawn_leader_elector(system, std::move(lc));
  }

  // Stop order (reverse): elector first (stop writing), then controllers, reflectors, store, rest.
  impl_->supervise("api_client", api);
  impl_->supervise("api_client/events", event_api);
  impl_->supervise("event_recorder", recorder);
  impl_->supervise("store", the_store);
  impl_->supervise("platform_detector", services.detector);
  if (gauges) impl_->supervise("gauge_projector", *gauges);
  for (std::size_t i = 0; i < services.resolvers.size(); ++i) {
    impl_->supervise("catalog_resolver/" + std::to_string(i), services.resolvers[i]);
    impl_->supervise("workflow_assembler/" + std::to_string(i), services.assemblers[i]);
  }
  for (std::size_t i = 0; i < reflectors.size(); ++i) {
    impl_->supervise("reflector/" + o.watches[i].api_version + "/" + o.watches[i].kind,
                     reflectors[i]);
  }
  for (std::size_t i = 0; i < controllers.size(); ++i) {
    impl_->supervise("controller/" + o.controllers[i].name, controllers[i]);
  }
  if (impl_->elector) impl_->supervise("leader_elector", *impl_->elector);
}

void Manager::stop() {
  if (!impl_ || !impl_->system || impl_->stopped) return;
  impl_->stopped = true;
  {
    // Scoped: the system's end waits for this actor too.
    caf::scoped_actor self{*impl_->system};
    // The supervisor learns first that the DOWNs to come are this stop, not failures (one that
    // arrived before is still reported).
    self->request(*impl_->supervisor, std::chrono::seconds(5), stopping_atom::value)
        .receive([](bool) {}, [](caf::error&) {});
    // Every API call ends first, whatever the server does: one to an unreachable server would hold
    // its API worker, and the requests queued behind it, each up to its timeout, and with them the
    // exit. No write of ours starts after this, so none follows the Lease release. The elector's
    // own client ends its calls when the elector exits, after one bounded try at the release.
    for (auto& client : impl_->clients) client->shutdown();
    for (auto it = impl_->actors.rbegin(); it != impl_->actors.rend(); ++it) {
      caf::anon_send_exit(it->handle, caf::exit_reason::user_shutdown);
    }
    impl_->actors.clear();
    impl_->elector.reset();
    // The supervisor ends after the last DOWN of the stop; held until then (an actor nobody
    // holds ends at once, and with it the account of the stop).
    self->wait_for(*impl_->supervisor);
    impl_->supervisor.reset();
  }
  // Waits for every actor to finish, the detached ones that ran the blocking loops too: the exiting
  // actors told their loops to stop (a watch or LIST ends at once, the election releases or
  // abandons the lease).
  impl_->system.reset();
  impl_->config.reset();
}

bool Manager::synced() const { return impl_->synced->load(); }

std::optional<std::string> Manager::failure() const {
  std::lock_guard lock(impl_->failure->mutex);
  return impl_->failure->first;
}

bool Manager::kill_actor(std::string_view name, std::string reason) {
  if (!impl_->system || impl_->stopped) return false;
  for (const auto& actor : impl_->actors) {
    if (actor.name != name) continue;
    // kill, unlike other reasons, skips the actor's exit handler: it ends as a crash would.
    const auto kill = caf::make_error(caf::exit_reason::kill);
    caf::scoped_actor self{*impl_->system};
    self->send_exit(actor.handle,
                    caf::error(kill.code(), kill.category(), caf::make_message(std::move(reason))));
    return true;
  }
  return false;
}

std::vector<std::string> Manager::actor_names() const {
  std::vector<std::string> names;
  for (const auto& actor : impl_->actors) names.push_back(actor.name);
  return names;
}

bool Manager::leading() const {
  if (!impl_->options.leader_elect) return true;
  if (!impl_->elector || !impl_->system) return false;
  caf::scoped_actor self{*impl_->system};
  bool leader = false;
  self->request(*impl_->elector, std::chrono::seconds(5), is_leader_atom::value)
      .receive([&](bool answer) { leader = answer; }, [&](caf::error&) { leader = false; });
  return leader;
}

}  // namespace nvcre::actors
