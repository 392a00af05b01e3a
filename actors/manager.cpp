#include "actors/manager.hpp"

#include "actors/api_server.hpp"
#include "actors/catalog_resolver.hpp"
#include "actors/controller.hpp"
#include "actors/event_recorder.hpp"
#include "actors/gang_scheduler.hpp"
#include "actors/leader_elector.hpp"
#include "actors/platform_detector.hpp"
#include "actors/reflector.hpp"
#include "actors/store.hpp"

#include <caf/all.hpp>

namespace nvcre::actors {

struct Manager::Impl {
  ManagerOptions options;
  std::unique_ptr<caf::actor_system_config> config;
  std::unique_ptr<caf::actor_system> system;
  std::shared_ptr<std::atomic<bool>> synced = std::make_shared<std::atomic<bool>>(false);
  std::vector<caf::actor> actors;  // every top-level actor, stopped in reverse order
  std::optional<leader_elector_actor> elector;
  std::shared_ptr<OwnedThreads> threads = std::make_shared<OwnedThreads>();
  std::vector<std::shared_ptr<k8s::RestClient>> clients;  // shut down first on stop (not the elector's)
  bool stopped = false;
};

Manager::Manager(ManagerOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = std::move(options); }

Manager::~Manager() { stop(); }

void Manager::start() {
  auto& o = impl_->options;
  impl_->config = std::make_unique<caf::actor_system_config>();
  // Idle workers wait on a condition variable. CAF's default work-stealing workers poll with 50 us
  // sleeps, which was most of the manager's CPU (perf, bench/manager_bench.cpp) and, on a busy
  // node, took cores from the reconciles and the API server.
  impl_->config->set("scheduler.policy", caf::atom("sharing"));
  impl_->system = std::make_unique<caf::actor_system>(*impl_->config);
  auto& system = *impl_->system;

  k8s::RestClientOptions client_options;
  client_options.user_agent = o.user_agent;
  auto api_client = std::make_shared<k8s::RestClient>(o.client, client_options);
  k8s::RestClientOptions watch_client_options = client_options;
  watch_client_options.max_retries = 0;  // the reflectors back off themselves, interruptibly
  watch_client_options.timeout = std::chrono::minutes(11);  // longer than any watch timeout we ask for

  auto cache = std::make_shared<SharedCache>();
  StoreConfig store_config{cache, {}, impl_->synced, {}};
  for (const auto& watch : o.watches) {
    store_config.expected_kinds.emplace(watch.api_version, watch.kind);
    store_config.scopes.push_back({watch.api_version, watch.kind, watch.resource.namespace_scoped ? o.watch_namespace : "",
                                   k8s::LabelSelector::parse(watch.label_selector)});
  }
  auto the_store = system.spawn(store, std::move(store_config));

  auto api = spawn_api_server(system, ApiServerConfig{api_client, o.metrics, o.api_workers, the_store});
  // Events get their own client, hence their own client-side rate limit, as controller-runtime's
  // recorder does: lifecycle events must not queue ahead of the status writes they describe.
  auto event_client = std::make_shared<k8s::RestClient>(o.client, client_options);
  auto event_api = spawn_api_server(system, ApiServerConfig{event_client, o.metrics, 1, std::nullopt});
  impl_->clients = {api_client, event_client};
  auto recorder = spawn_event_recorder(system, EventRecorderConfig{event_api, k8s::EventSource{"nvcre", o.instance}});

  // The build services. Subscribed before any reflector runs, the detector sees every Node.
  // They answer refusals as values and map their own exceptions to error replies, so a failure
  // in one costs the asking reconcile a retry with backoff, never the manager.
  ServiceActors services{spawn_platform_detector(system, PlatformDetectorConfig{cache}), {}, {}};
  for (std::size_t i = 0; i < o.build_service_pool; ++i) {
    services.resolvers.push_back(spawn_catalog_resolver(system));
    services.gangs.push_back(spawn_gang_scheduler(system));
  }
  caf::anon_send(the_store, subscribe_atom::value, change_subscriber_actor{services.detector});

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
    cc.max_concurrent = o.max_concurrent_reconciles;
    cc.leading = !o.leader_elect;
    cc.metrics = o.metrics;
    auto c = system.spawn(controller, std::move(cc));
    caf::anon_send(the_store, subscribe_atom::value, change_subscriber_actor{c});
    controllers.push_back(c);
  }

  std::vector<caf::actor> reflectors;
  for (const auto& watch : o.watches) {
    auto watch_client = std::make_shared<k8s::RestClient>(o.client, watch_client_options);
    impl_->clients.push_back(watch_client);
    ReflectorActorConfig rc;
    rc.client = watch_client;
    rc.options.resource = watch.resource;
    rc.options.ns = watch.resource.namespace_scoped ? o.watch_namespace : "";
    rc.options.label_selector = watch.label_selector;
    rc.options.max_watch_timeout = o.max_watch_timeout;
    rc.api_version = watch.api_version;
    rc.kind = watch.kind;
    rc.store = the_store;
    rc.metrics = o.metrics;
    rc.threads = impl_->threads;
    reflectors.push_back(caf::actor_cast<caf::actor>(spawn_reflector(system, std::move(rc))));
  }

  if (o.leader_elect) {
    LeaderElectorActorConfig lc;
    lc.client = std::make_shared<k8s::RestClient>(o.client, client_options);
    lc.election = o.election;
    lc.controllers = controllers;
    lc.on_lost = o.on_leadership_lost;
    lc.abandon_on_exit = o.abandon_lease_on_stop;
    lc.threads = impl_->threads;
    impl_->elector = spawn_leader_elector(system, std::move(lc));
  }

  // Stop order (reverse): elector first (stop writing), then controllers, reflectors, store, rest.
  impl_->actors.push_back(caf::actor_cast<caf::actor>(api));
  impl_->actors.push_back(caf::actor_cast<caf::actor>(event_api));
  impl_->actors.push_back(caf::actor_cast<caf::actor>(recorder));
  impl_->actors.push_back(caf::actor_cast<caf::actor>(the_store));
  impl_->actors.push_back(caf::actor_cast<caf::actor>(services.detector));
  for (auto& resolver : services.resolvers) impl_->actors.push_back(caf::actor_cast<caf::actor>(resolver));
  for (auto& gang : services.gangs) impl_->actors.push_back(caf::actor_cast<caf::actor>(gang));
  for (auto& r : reflectors) impl_->actors.push_back(r);
  for (auto& c : controllers) impl_->actors.push_back(caf::actor_cast<caf::actor>(c));
  if (impl_->elector) impl_->actors.push_back(caf::actor_cast<caf::actor>(*impl_->elector));
}

void Manager::stop() {
  if (!impl_ || !impl_->system || impl_->stopped) return;
  impl_->stopped = true;
  // Every API call ends first, whatever the server does: one to an unreachable server would hold
  // its API worker, and the requests queued behind it, each up to its timeout, and with them the
  // exit. No write of ours starts after this, so none follows the Lease release. The elector's
  // own client ends its calls when the elector exits, after one bounded try at the release.
  for (auto& client : impl_->clients) client->shutdown();
  for (auto it = impl_->actors.rbegin(); it != impl_->actors.rend(); ++it) {
    caf::anon_send_exit(*it, caf::exit_reason::user_shutdown);
  }
  impl_->actors.clear();
  impl_->elector.reset();
  // The exiting actors told their loops to stop: a watch or LIST ends at once, the election
  // releases (or abandons) the lease. Joined here, while the actors their callbacks message still exist.
  impl_->threads->join_all();
  impl_->system.reset();  // waits for every actor to finish
  impl_->config.reset();
}

bool Manager::synced() const { return impl_->synced->load(); }

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
