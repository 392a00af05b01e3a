#include "reconcile/reads.hpp"

#include <algorithm>

namespace nvcre::reconcile {

ObjectLookup read_object(const Context& in, Result& result, const k8s::ObjectRef& ref) {
  if (const boost::json::value* cached = in.cache.get(ref))
    return {ObjectLookup::State::Present, cached, false};
  // The watch's DELETED event is proof of absence, as a live NotFound is.
  if (in.cache.seen_deleted(ref)) return {ObjectLookup::State::Absent, nullptr, false};
  if (auto it = in.live.find(ref); it != in.live.end()) {
    if (it->second.is_null()) return {ObjectLookup::State::Absent, nullptr, true};
    return {ObjectLookup::State::Present, &it->second, true};
  }
  auto& actions = result.plan.actions;
  const bool planned = std::any_of(actions.begin(), actions.end(), [&](const k8s::Action& a) {
    return a.verb == k8s::ActionVerb::LiveGet && a.target == ref;
  });
  if (!planned) actions.push_back(k8s::live_get(ref));
  return {};
}

bool waiting_for_reads(const Result& result) {
  const auto& actions = result.plan.actions;
  return !result.wanted_pod_logs.empty() ||
         std::any_of(actions.begin(), actions.end(),
                     [](const k8s::Action& a) { return a.verb == k8s::ActionVerb::LiveGet; });
}

void keep_only_reads(Result& result) {
  k8s::ReconcilePlan reads;
  for (auto& action : result.plan.actions) {
    if (action.verb == k8s::ActionVerb::LiveGet) reads.actions.push_back(std::move(action));
  }
  result.plan = std::move(reads);
  result.memo.reset();
}

}  // namespace nvcre::reconcile
