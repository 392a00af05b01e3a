#include "actors/own_writes.hpp"
#include "k8s/meta.hpp"

#include "jsonkit/paths.hpp"

#include "k8s/cache_transform.hpp"

namespace nvcre::actors {
namespace {

namespace json = boost::json;

// A Delete's answer is the object as it now stands only when a finalizer holds it: it carries
// deletionTimestamp and stays until the finalizer goes. Otherwise the object is gone (the answer is
// its last state, or a Status) and caching it would bring it back.
bool held_by_finalizers(const json::value& answer) {
  return k8s::is_being_deleted(answer) && !k8s::finalizers_of(answer).empty();
}

}  // namespace

bool answer_is_current_object(k8s::ActionVerb verb, const json::value& answer) {
  if (!answer.is_object() || verb == k8s::ActionVerb::LiveGet) return false;
  return verb != k8s::ActionVerb::Delete || held_by_finalizers(answer);
}

bool record_own_write(SharedCache& cache, const std::vector<k8s::CacheScope>& scopes,
                      json::value answer) {
  if (!answer.is_object() || !k8s::in_cache_scope(scopes, answer)) return false;
  k8s::trim_for_cache(answer);
  return cache.write(
      [&](k8s::ObjectCache& objects) { return objects.record_own_write(std::move(answer)); });
}

}  // namespace nvcre::actors
