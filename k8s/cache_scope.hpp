#pragma once
// What one watch brings into the informer cache: a kind, a namespace ("" = every namespace) and
// a label selector. The manager caches its own writes ahead of the watch only inside these scopes:
// an object no watch delivers would never be updated or removed again.
#include "k8s/label_selector.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace nvcre::k8s {

struct CacheScope {
  std::string api_version;
  std::string kind;
  std::string ns;  // "" = every namespace
  LabelSelector selector;
};

// Whether a watch with one of these scopes would deliver `object`.
bool in_cache_scope(const std::vector<CacheScope>& scopes, const boost::json::value& object);

}  // namespace nvcre::k8s
