#include "job/job_pass.hpp"

#include "k8s/label_selector.hpp"
#include "job/trainjob_adapter.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace nvcre::job::detail {
namespace json = boost::json;

JobPass::JobPass(const reconcile::Context& input, const api::Job& decoded)
    : in(input), job(decoded) {
  // The pod label is injected by the Job controller into the worker pod template, valued with the
  // Job name. A name that is no valid label value (only a hand-made Job longer than 63) has no
  // pods.
  try {
    auto selector = k8s::LabelSelector::from_match_labels(
        {{std::string(trainjob::kJobLabel), job.metadata.name}});
    pods = in.cache.list("v1", "Pod", job.metadata.namespace_, selector);
  } catch (const std::invalid_argument&) {
    pods.clear();
  }
}

ObjectLookup JobPass::read(const k8s::ObjectRef& ref) {
  if (const json::value* cached = in.cache.get(ref))
    return {ObjectLookup::State::Present, cached, false};
  if (auto it = in.live.find(ref); it != in.live.end()) {
    if (it->second.is_null()) return {ObjectLookup::State::Absent, nullptr, true};
    return {ObjectLookup::State::Present, &it->second, true};
  }
  const bool planned = std::any_of(
      result.plan.actions.begin(), result.plan.actions.end(),
      [&](const k8s::Action& a) { return a.verb == k8s::ActionVerb::LiveGet && a.target == ref; });
  if (!planned) result.plan.actions.push_back(k8s::live_get(ref));
  return {};
}

bool JobPass::stopped() const {
  return !result.wanted_pod_logs.empty() ||
         std::any_of(result.plan.actions.begin(), result.plan.actions.end(),
                     [](const k8s::Action& a) { return a.verb == k8s::ActionVerb::LiveGet; });
}

reconcile::Result JobPass::take_result() {
  if (stopped()) {
    // Writes planned before the stop were decided on incomplete knowledge: drop them.
    k8s::ReconcilePlan reads;
    for (auto& action : result.plan.actions) {
      if (action.verb == k8s::ActionVerb::LiveGet) reads.actions.push_back(std::move(action));
    }
    result.plan = std::move(reads);
  }
  return std::move(result);
}

bool controlled_by(const json::value& object, std::string_view owner_uid) {
  const json::value* refs = value_at(object, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->is_array() || owner_uid.empty()) return false;
  return std::any_of(refs->get_array().begin(), refs->get_array().end(),
                     [&](const json::value& ref) {
                       const json::value* controller = value_at(ref, {"controller"});
                       return string_at(ref, {"uid"}) == owner_uid && controller != nullptr &&
                              controller->is_bool() && controller->get_bool();
                     });
}

}  // namespace nvcre::job::detail
