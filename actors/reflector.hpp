#pragma once
// One reflector per watched kind. The list/watch loop blocks (k8s::ReflectorRunner), so it runs on
// a detached actor of its own (actors/blocking_work.hpp); its delta batches become `apply` messages
// to the store actor. When this actor exits, the loop is told to stop (a watch or LIST ends at
// once) and its actor ends with it.
#include "actors/interfaces.hpp"
#include "k8s/reflector_runner.hpp"

#include <caf/typed_response_promise.hpp>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace nvcre::k8s {
class Metrics;
}

namespace nvcre::actors {

using reflector_actor =
    caf::typed_actor<caf::replies_to<stats_atom>::with<std::uint64_t>,
                     // A fresh full list (k8s::ReflectorRunner::request_relist): answered once its
                     // result is in the cache, so the cache is no older than the request.
                     caf::replies_to<relist_atom>::with<bool>,
                     caf::reacts_to<relisted_atom, std::uint64_t>>;  // from the loop: request done

struct ReflectorActorConfig {
  std::shared_ptr<k8s::RestClient> client;  // max_retries 0: the reflector does its own backoff
  k8s::ReflectorRunnerOptions options;
  std::string api_version;
  std::string kind;
  store_actor store;
  std::shared_ptr<k8s::Metrics> metrics;  // optional
};

struct ReflectorState {
  std::shared_ptr<k8s::ReflectorRunner> runner;
  std::map<std::uint64_t, caf::typed_response_promise<bool>> relists_pending;
  std::uint64_t next_relist = 0;
  std::shared_ptr<std::atomic<std::uint64_t>>
      relists;  // full lists so far (counted on the loop's thread)
  static inline const char* name = "reflector";
};

reflector_actor::behavior_type reflector(reflector_actor::stateful_pointer<ReflectorState> self,
                                         ReflectorActorConfig config);

reflector_actor spawn_reflector(caf::actor_system& system, ReflectorActorConfig config);

// Reflector deltas -> store deltas (pure; exposed for tests).
std::vector<StoreDelta> to_store_deltas(const std::string& api_version, const std::string& kind,
                                        std::vector<k8s::Delta> deltas);

}  // namespace nvcre::actors
