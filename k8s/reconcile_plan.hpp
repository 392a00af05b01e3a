#pragma once
// The contract between a pure reconcile function and the actor that carries it out.
//
// A reconcile is `observed -> ReconcilePlan`. The actor executes the plan's actions in order (an
// action marked joins_previous goes out together with the one before it) and stops at the first
// failure; it then re-runs the same reconcile with that failure (and, for a
// create that met AlreadyExists, the live holder) in `ActionOutcome`, so every decision that
// depends on an API answer (adopt or collide, retry or fail) stays in the pure function. A 409 on a
// status write is answered the same way: re-read the object, re-plan from the fresh copy (the
// level-triggered form of client-go's "mutate, retry on conflict").
//
// Cache misses are never proof of absence: a reconcile that would act on a missing child asks for
// a `LiveGet` first; the actor performs it and re-plans with the answer in `LiveReads`.
#include <boost/json/value.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

// Identifies one object: apiVersion ("v1", "nvcre.nvidia.com/v1alpha1") + kind + namespace + name.
// The actor maps (apiVersion, kind) to a resource path through discovery.
struct ObjectRef {
  std::string api_version;
  std::string kind;
  std::string ns;  // "" for cluster-scoped
  std::string name;
  auto operator<=>(const ObjectRef&) const = default;
};

std::string to_string(const ObjectRef& ref);  // "kind ns/name"

// The work-queue and informer key of an object: "ns/name", or "name" when cluster-scoped.
std::string object_key(std::string_view ns, std::string_view name);
inline std::string object_key(const ObjectRef& ref) { return object_key(ref.ns, ref.name); }
// The object of `api_version` and `kind` with this key.
ObjectRef ref_from_key(std::string api_version, std::string kind, std::string_view key);

enum class ActionVerb {
  Create,            // body: the whole object
  MergePatch,        // body: RFC 7386 patch (metadata.finalizers, labels, spec ...)
  UpdateStatus,      // body: the whole object with metadata.resourceVersion: 409 when stale
  MergePatchStatus,  // body: patch of the status subresource (carry metadata.resourceVersion to
                     // make it conditional)
  Update,            // body: the whole object with metadata.resourceVersion (finalizer removal)
  Delete,            // precondition_uid / propagation below
  LiveGet,           // uncached read (no name: a List); the answer comes back in LiveReads
};

enum class Propagation { Default, Background, Foreground, Orphan };

struct Action {
  ActionVerb verb = ActionVerb::LiveGet;
  ObjectRef target;
  boost::json::value body;                      // Create / Update / patches
  std::optional<std::string> precondition_uid;  // Delete
  Propagation propagation = Propagation::Default;
  bool ignore_not_found = false;  // Delete / patches: NotFound counts as success
  // Delete with a UID precondition: a same-named replacement (the precondition's Conflict) counts
  // as success; any other Conflict stays an error, to retry (it may not have deleted anything).
  bool ignore_conflict = false;
  // Independent of the action before it in the plan: the two may be sent at once. A run of such
  // actions goes out together and the plan continues when all have answered; the first failure in
  // plan order is the one reported.
  bool joins_previous = false;
};

// Builders (aggregate initialisation of Action trips -Wmissing-field-initializers).
inline Action make_action(ActionVerb verb, ObjectRef target, boost::json::value body = nullptr) {
  Action action;
  action.verb = verb;
  action.target = std::move(target);
  action.body = std::move(body);
  return action;
}
inline Action live_get(ObjectRef target) {
  return make_action(ActionVerb::LiveGet, std::move(target));
}
// Delete guarded by the uid (a same-named replacement is never deleted); NotFound and Conflict
// count as success for owned children.
inline Action delete_owned(ObjectRef target, std::string uid) {
  Action action = make_action(ActionVerb::Delete, std::move(target));
  action.precondition_uid = std::move(uid);
  action.ignore_not_found = true;
  action.ignore_conflict = true;
  return action;
}

// An event to record against an object (events.k8s.io/v1; reason doubles as action).
struct EventRecord {
  ObjectRef regarding;
  std::string uid;   // regarding object's uid, when known
  std::string type;  // "Normal" | "Warning"
  std::string reason;
  std::string note;  // the recorder makes it valid UTF-8 and caps it at 1024 bytes
};

struct ReconcilePlan {
  std::vector<Action> actions;  // executed in order; the first failure stops the rest
  // Recorded only when every action succeeded (a transition event follows its status write).
  std::vector<EventRecord> events;
  // After a fully successful plan: requeue after this delay (no backoff growth), or not at all.
  std::optional<std::chrono::milliseconds> requeue_after;
  // Report an error to the work queue (rate-limited requeue) after the actions ran, as a Go
  // reconciler returning an error does. Empty: success.
  std::string error;
};

// What the actor learnt by carrying out the previous plan for this key (if anything failed).
struct ActionOutcome {
  Action action;       // the action that failed
  int code = 0;        // HTTP status (0: transport error)
  std::string reason;  // Status.reason: AlreadyExists, Conflict, NotFound, Invalid ...
  std::string message;
  std::optional<boost::json::value>
      live_holder;  // Create + AlreadyExists: the object holding the name
                    // (read live), or nullopt when that read failed
};

// A Create that succeeded, told to a later plan of the same pass as what holds the name: an
// AlreadyExists whose holder is the created object (the answer a replayed Create would get). Its
// action names the Create's verb and target only: a later plan decides on the holder, and the
// body it sent is in the holder.
ActionOutcome created_by_this_pass(const Action& create, boost::json::value created);

// Answers to LiveGet actions: present and null means a live NotFound.
using LiveReads = std::map<ObjectRef, boost::json::value>;

std::string_view to_string(ActionVerb verb);
// A stable JSON rendering of a plan (golden tests and debug logs): actions with verb, target and
// body, events, requeueAfter in milliseconds, error.
boost::json::value plan_to_json(const ReconcilePlan& plan);
ObjectRef object_ref_from_json(
    const boost::json::value& ref);  // {apiVersion, kind, namespace, name}
boost::json::value object_ref_to_json(const ObjectRef& ref);

// Requeue constants shared by every controller.
inline constexpr std::chrono::milliseconds kImmediateRequeue{50};
inline constexpr std::chrono::milliseconds kDefaultRequeue{15000};

}  // namespace nvcre::k8s
