#include "measurement/profile_cache.hpp"

#include "api/measurement.hpp"
#include "jsonkit/paths.hpp"

namespace nvcre::measurement {

measure::CompiledProfile CompiledProfileCache::get(const boost::json::value& manifest) {
  const std::string name = jsonkit::string_at(manifest, {"metadata", "name"});
  const std::string uid = jsonkit::string_at(manifest, {"metadata", "uid"});
  const std::string version = jsonkit::string_at(manifest, {"metadata", "resourceVersion"});
  // Without both (an object that never came from an API server) nothing pins the content.
  const bool pinned = !uid.empty() && !version.empty();
  if (pinned) {
    std::lock_guard lock(mutex_);
    if (auto found = by_name_.find(name); found != by_name_.end() && found->second.uid == uid &&
                                          found->second.resource_version == version) {
      return found->second.compiled;
    }
  }
  // Compiled outside the lock: two passes racing on a new version both compile, both correct.
  measure::CompiledProfile compiled =
      measure::compile_profile(api::decode<api::LogProfile>(manifest));
  std::lock_guard lock(mutex_);
  ++compilations_;
  if (!pinned) return compiled;
  if (by_name_.size() >= capacity_ && !by_name_.contains(name)) by_name_.clear();
  by_name_.insert_or_assign(name, Entry{uid, version, compiled});
  return compiled;
}

std::size_t CompiledProfileCache::compilations() const {
  std::lock_guard lock(mutex_);
  return compilations_;
}

CompiledProfileCache& shared_profile_cache() {
  static CompiledProfileCache cache;
  return cache;
}

}  // namespace nvcre::measurement
