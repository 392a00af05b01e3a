#pragma once
// Compiled LogProfiles kept across measurement passes. Compiling is a pure function of a profile's
// content, which its uid and resourceVersion pin, and it costs more than the pass's log scan (the
// megatron-training profile takes about 0.3 ms: bench/measure_bench.cpp), so each profile version
// is compiled once and every later pass of every measurement gets a copy (the regexes are shared).
#include "measure/log_profile.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace nvcre::measurement {

class CompiledProfileCache {
 public:
  // At most `capacity` profile names are kept; one more clears the cache.
  explicit CompiledProfileCache(std::size_t capacity = 256) : capacity_(capacity) {}

  // The compiled form of `manifest`, a LogProfile as the cache stores it. Compiles when its name
  // is new or its uid or resourceVersion changed, and every time for a manifest lacking either
  // (nothing pins its content); throws as decoding and compile_profile do, and
  // keeps nothing then (the next pass reports the same error).
  measure::CompiledProfile get(const boost::json::value& manifest);

  std::size_t compilations() const;  // how many times get() compiled

 private:
  struct Entry {
    std::string uid;
    std::string resource_version;
    measure::CompiledProfile compiled;
  };
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> by_name_;
  std::size_t compilations_ = 0;
};

// The one cache the measurement reconciles share.
CompiledProfileCache& shared_profile_cache();

}  // namespace nvcre::measurement
