#include "reconcile/reads.hpp"

#include "jsonkit/paths.hpp"

#include <boost/json/object.hpp>

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

CollectionLookup read_collection(const Context& in, k8s::ReconcilePlan& plan,
                                 const k8s::ObjectRef& collection) {
  if (auto it = in.live.find(collection); it != in.live.end()) {
    const auto* object = it->second.if_object();
    if (object != nullptr && jsonkit::view_of(object, "kind") == "Status")
      return {CollectionLookup::State::Unavailable, nullptr, jsonkit::string_of(object, "message")};
    return {CollectionLookup::State::Listed, &it->second, {}};
  }
  auto& actions = plan.actions;
  const bool planned = std::any_of(actions.begin(), actions.end(), [&](const k8s::Action& a) {
    return a.verb == k8s::ActionVerb::LiveGet && a.target == collection;
  });
  if (!planned) actions.push_back(k8s::live_get(collection));
  return {};
}

boost::json::value refused_collection(int code, const std::string& message) {
  return boost::json::object{
      {"kind", "Status"}, {"status", "Failure"}, {"code", code}, {"message", message}};
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
