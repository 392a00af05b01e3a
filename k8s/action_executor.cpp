#include "k8s/action_executor.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::k8s {
namespace {

PropagationPolicy to_policy(Propagation propagation) {
  switch (propagation) {
    case Propagation::Background:
      return PropagationPolicy::Background;
    case Propagation::Foreground:
      return PropagationPolicy::Foreground;
    case Propagation::Orphan:
      return PropagationPolicy::Orphan;
    case Propagation::Default:
      break;
  }
  return PropagationPolicy::Default;
}

boost::json::value perform(RestClient& client, const ResourceRef& ref, const Action& action) {
  const std::string& ns = action.target.ns;
  const std::string& name = action.target.name;
  switch (action.verb) {
    case ActionVerb::Create:
      return client.create(ref, ns, action.body);
    case ActionVerb::MergePatch:
      return client.merge_patch(ref, ns, name, action.body);
    case ActionVerb::UpdateStatus:
      return client.update_status(ref, ns, action.body);
    case ActionVerb::MergePatchStatus:
      return client.merge_patch_status(ref, ns, name, action.body);
    case ActionVerb::Update:
      return client.update(ref, ns, action.body);
    case ActionVerb::LiveGet:
      // Without a name: the whole collection (an uncached List).
      return name.empty() ? client.list(ref, ns) : client.get(ref, ns, name);
    case ActionVerb::Delete: {
      DeleteOptions options;
      options.precondition_uid = action.precondition_uid;
      options.propagation = to_policy(action.propagation);
      return client.remove(ref, ns, name, options);
    }
  }
  throw std::logic_error("unknown action verb");
}

}  // namespace

ActionResult execute_action(RestClient& client, ResourceMapper& mapper, const Action& action) {
  ActionResult result;
  try {
    ResourceRef ref = mapper.resource_for(action.target.api_version, action.target.kind);
    result.object = perform(client, ref, action);
  } catch (const ApiError& error) {
    bool not_found = is_not_found(error);
    if ((not_found && (action.verb == ActionVerb::LiveGet || action.ignore_not_found)) ||
        (is_uid_precondition_failure(error) && action.ignore_conflict)) {
      return ActionResult{};  // an answer the reconciler asked to treat as success
    }
    result.code = error.code;
    result.reason = error.reason;
    result.message = error.message;
  } catch (const TransportError& error) {
    result.code = 0;
    result.reason = "Transport";
    result.message = error.what();
  } catch (const std::invalid_argument& error) {
    result.code = 0;
    result.reason = "NoKindMatch";
    result.message = error.what();
  }
  return result;
}

}  // namespace nvcre::k8s
