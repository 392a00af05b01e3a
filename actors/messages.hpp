#pragma once
// Atoms and message payloads shared by the actors. Everything stays in one process, so payloads
// are whitelisted as local-only types instead of being made serializable.
#include "certification/build_request.hpp"
#include "k8s/action_executor.hpp"
#include "reconcile/contract.hpp"
#include "k8s/reconcile_plan.hpp"
#include "platform/node_facts.hpp"

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/atom.hpp>

#include <boost/json/value.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::actors {

using execute_atom = caf::atom_constant<caf::atom("execute")>;
using pod_log_atom = caf::atom_constant<caf::atom("podlog")>;
using reconcile_atom = caf::atom_constant<caf::atom("reconcile")>;
using changed_atom = caf::atom_constant<caf::atom("changed")>;
using apply_atom = caf::atom_constant<caf::atom("apply")>;
using synced_atom = caf::atom_constant<caf::atom("synced")>;
using subscribe_atom = caf::atom_constant<caf::atom("subscribe")>;
using leading_atom = caf::atom_constant<caf::atom("leading")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using reap_atom = caf::atom_constant<caf::atom("reap")>;
using record_atom = caf::atom_constant<caf::atom("record")>;
using stats_atom = caf::atom_constant<caf::atom("stats")>;
using is_leader_atom = caf::atom_constant<caf::atom("isleader")>;
using enqueue_atom = caf::atom_constant<caf::atom("enqueue")>;
using detect_atom = caf::atom_constant<caf::atom("detect")>;
using resolve_atom = caf::atom_constant<caf::atom("resolve")>;
using assemble_atom = caf::atom_constant<caf::atom("assemble")>;
using own_write_atom = caf::atom_constant<caf::atom("ownwrite")>;
using supervise_atom = caf::atom_constant<caf::atom("supervise")>;
using stopping_atom = caf::atom_constant<caf::atom("stopping")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using relist_atom = caf::atom_constant<caf::atom("relist")>;
using relisted_atom = caf::atom_constant<caf::atom("relisted")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;

// An owner reference as controllers map it to keys (For / Owns).
struct OwnerLink {
  std::string api_version;
  std::string kind;
  std::string name;
  bool controller = false;
};

// A cached object changed (or went away): enough for a controller to decide which keys to queue.
struct ChangeNotice {
  k8s::ObjectRef ref;
  std::vector<OwnerLink> owners;
  bool deleted = false;
};

// One batch of store deltas from a reflector.
struct StoreDelta {
  enum class Type { Upsert, Delete, Synced };
  Type type = Type::Upsert;
  boost::json::value object;  // Upsert/Delete: the object (Delete: last known state)
  k8s::ObjectRef ref;         // Delete / Synced (kind only)
};

// What one reconcile pass asks of the work queue.
struct PassResult {
  std::optional<std::chrono::milliseconds> requeue_after;
  std::string error;  // non-empty: rate-limited requeue
  // The object's memo after the pass (reconcile::Context::memo): the controller keeps it for the
  // next reconciler of the key, so an idle reconciler can end without losing it.
  boost::json::value memo;
};

struct ControllerStats {
  std::string name;
  std::size_t queue_depth = 0;
  std::size_t in_flight = 0;
  std::size_t live_reconcilers = 0;
  std::uint64_t passes = 0;
  std::uint64_t errors = 0;
  std::uint64_t crashes = 0;
};

// What the platform_detector's Node view holds (tests, debugging).
struct PlatformDetectorStats {
  std::size_t known_nodes = 0;
  std::uint64_t derivations = 0;  // per-node facts derived so far (a cached node is not re-derived)
};

}  // namespace nvcre::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(boost::json::value)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::k8s::Action)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::k8s::ActionResult)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::k8s::EventRecord)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::reconcile::PodLogWant)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::reconcile::PodLogAnswer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::actors::ChangeNotice)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::actors::StoreDelta)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<nvcre::actors::StoreDelta>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::actors::PassResult)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::actors::ControllerStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::actors::PlatformDetectorStats)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<nvcre::platform::NodeRef>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::platform::DetectionFacts)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::api::Certification)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::certification::CategoryBuildRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::certification::ResolvedCategory)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::certification::ResolveAnswer)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(nvcre::certification::CategoryBuildAnswer)
