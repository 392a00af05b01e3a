#pragma once
// The typed interfaces of every actor (CAF 0.17 `replies_to<...>::with<...>` form).
#include "actors/messages.hpp"

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <string>

namespace nvcre::actors {

// Owns the REST client and its connection pool; every API call of the manager goes through it.
using api_client_actor = caf::typed_actor<
    caf::replies_to<execute_atom, k8s::Action>::with<k8s::ActionResult>,
    // what to read -> the text, or why it could not be read
    caf::replies_to<pod_log_atom, reconcile::PodLogWant>::with<reconcile::PodLogAnswer>>;

// Records events.k8s.io Events, fire-and-forget.
using event_recorder_actor = caf::typed_actor<caf::reacts_to<record_atom, k8s::EventRecord>>;

// Whatever follows the store's changes: the controllers and the platform_detector.
using change_subscriber_actor =
    caf::typed_actor<caf::reacts_to<changed_atom, ChangeNotice>,  // an object changed
                     caf::reacts_to<synced_atom>>;                // every kind listed in full

// One per controller: the work queue plus the supervisor of its per-key reconcilers.
using controller_actor =
    caf::typed_actor<caf::reacts_to<changed_atom, ChangeNotice>,
                     caf::reacts_to<enqueue_atom, std::string>,  // a key, e.g. after a crash report
                     caf::reacts_to<synced_atom>,  // the store holds a full list of every kind
                     caf::reacts_to<leading_atom, bool>,  // leader election result
                     caf::reacts_to<tick_atom>,           // a parked key may be ready
                     caf::reacts_to<reap_atom>,           // stop idle reconcilers
                     caf::replies_to<stats_atom>::with<ControllerStats>>;

// Owns the shared cache's write side; fans changes out to the controllers.
using store_actor =
    caf::typed_actor<caf::reacts_to<apply_atom, std::vector<StoreDelta>>,
                     // The API server's answer to one of our own writes, delegated here by the
                     // API worker: its object is cached (read-your-writes) before the answer goes
                     // back to the writer, unchanged.
                     caf::replies_to<own_write_atom, k8s::ActionResult>::with<k8s::ActionResult>,
                     caf::reacts_to<subscribe_atom, change_subscriber_actor>,
                     // Answered once every message queued before it has been handled: deltas
                     // sent before the flush are in the cache when the answer comes.
                     caf::replies_to<flush_atom>::with<bool>>;

// One per object key, spawned on demand by its controller.
using reconciler_actor = caf::typed_actor<caf::replies_to<reconcile_atom>::with<PassResult>>;

// The build services a Certification reconcile asks, in this order, for a category's Workflow.
// Domain refusals (unknown category, no architecture, gang conflict) are answers (BuildFailure);
// a caf::error means the service could not answer, and the reconcile retries with backoff.

// Owns the Node view (facts derived per node, kept current from the store's Node changes) and
// answers detection over a target's nodes (an error when a node has left the cache).
using platform_detector_actor = change_subscriber_actor::extend<
    caf::replies_to<detect_atom, std::vector<platform::NodeRef>>::with<platform::DetectionFacts>,
    caf::replies_to<stats_atom>::with<PlatformDetectorStats>>;

// Category -> WorkflowSpec against the detection facts (catalog, options, GPU defaults, node
// count, overrides).
using catalog_resolver_actor =
    caf::typed_actor<caf::replies_to<resolve_atom, certification::CategoryBuildRequest,
                                     platform::DetectionFacts>::with<certification::ResolveAnswer>>;

// The gang-scheduling rewrite and validation, and the Workflow object.
using workflow_assembler_actor = caf::typed_actor<
    caf::replies_to<assemble_atom, api::Certification,
                    certification::ResolvedCategory>::with<certification::CategoryBuildAnswer>>;

// The build services. The detector owns the Node view, so there is one; the resolver and the
// gang scheduler are stateless, so each is a pool and a request goes to the member its key picks:
// builds of many Certifications run side by side instead of queueing in one mailbox.
struct ServiceActors {
  platform_detector_actor detector;
  std::vector<catalog_resolver_actor> resolvers;
  std::vector<workflow_assembler_actor> assemblers;
};

}  // namespace nvcre::actors
