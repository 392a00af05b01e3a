#include "k8s/reconcile_plan.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json.hpp>

namespace nvcre::k8s {
namespace json = boost::json;

std::string to_string(const ObjectRef& ref) { return ref.kind + " " + object_key(ref); }

std::string object_key(std::string_view ns, std::string_view name) {
  return ns.empty() ? std::string(name) : std::string(ns) + "/" + std::string(name);
}

ObjectRef ref_from_key(std::string api_version, std::string kind, std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos)
    return ObjectRef{std::move(api_version), std::move(kind), "", std::string(key)};
  return ObjectRef{std::move(api_version), std::move(kind), std::string(key.substr(0, slash)),
                   std::string(key.substr(slash + 1))};
}

std::string_view to_string(ActionVerb verb) {
  switch (verb) {
    case ActionVerb::Create:
      return "Create";
    case ActionVerb::MergePatch:
      return "MergePatch";
    case ActionVerb::UpdateStatus:
      return "UpdateStatus";
    case ActionVerb::MergePatchStatus:
      return "MergePatchStatus";
    case ActionVerb::Update:
      return "Update";
    case ActionVerb::Delete:
      return "Delete";
    case ActionVerb::LiveGet:
      return "LiveGet";
  }
  return "?";
}

namespace {

std::string_view to_string(Propagation propagation) {
  switch (propagation) {
    case Propagation::Default:
      return "";
    case Propagation::Background:
      return "Background";
    case Propagation::Foreground:
      return "Foreground";
    case Propagation::Orphan:
      return "Orphan";
  }
  return "";
}

}  // namespace

json::value object_ref_to_json(const ObjectRef& ref) {
  json::object out{{"apiVersion", ref.api_version}, {"kind", ref.kind}};
  if (!ref.ns.empty()) out["namespace"] = ref.ns;
  out["name"] = ref.name;
  return out;
}

ObjectRef object_ref_from_json(const json::value& ref) {
  return ObjectRef{jsonkit::string_at(ref, {"apiVersion"}), jsonkit::string_at(ref, {"kind"}),
                   jsonkit::string_at(ref, {"namespace"}), jsonkit::string_at(ref, {"name"})};
}

json::value plan_to_json(const ReconcilePlan& plan) {
  json::array actions;
  for (const Action& action : plan.actions) {
    json::object a{{"verb", to_string(action.verb)}, {"target", object_ref_to_json(action.target)}};
    if (!action.body.is_null()) a["body"] = action.body;
    if (action.precondition_uid) a["preconditionUID"] = *action.precondition_uid;
    if (action.propagation != Propagation::Default)
      a["propagation"] = to_string(action.propagation);
    if (action.ignore_not_found) a["ignoreNotFound"] = true;
    if (action.ignore_conflict) a["ignoreConflict"] = true;
    if (action.joins_previous) a["joinsPrevious"] = true;
    actions.push_back(std::move(a));
  }
  json::array events;
  for (const EventRecord& event : plan.events) {
    events.push_back(json::object{{"regarding", object_ref_to_json(event.regarding)},
                                  {"type", event.type},
                                  {"reason", event.reason},
                                  {"note", event.note}});
  }
  json::object out{{"actions", std::move(actions)}, {"events", std::move(events)}};
  if (plan.requeue_after) out["requeueAfterMs"] = plan.requeue_after->count();
  if (!plan.error.empty()) out["error"] = plan.error;
  return out;
}

ActionOutcome created_by_this_pass(const Action& create, boost::json::value created) {
  ActionOutcome outcome;
  outcome.action.verb = create.verb;
  outcome.action.target = create.target;
  outcome.code = 409;
  outcome.reason = "AlreadyExists";
  outcome.message = "created by an earlier plan of this pass";
  outcome.live_holder = std::move(created);
  return outcome;
}

}  // namespace nvcre::k8s
