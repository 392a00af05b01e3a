#pragma once
// The API client: a pool actor that owns the REST client (connection pool, rate limiter) and the
// discovery-backed resource mapper, and serves typed requests. The client blocks, so the calls run
// on a small pool of detached worker actors (each its own thread: actors/blocking_work.hpp says
// why all blocking work runs on detached actors); this actor hands each request
// to an idle worker, or holds it in arrival order until one is free. Errors come back as values
// (k8s::ActionResult), never as actor failures.
#include "actors/interfaces.hpp"

#include <memory>
#include <optional>

namespace nvcre::k8s {
class RestClient;
}
namespace nvcre::k8s {
class Metrics;
}

namespace nvcre::actors {

struct ApiClientConfig {
  std::shared_ptr<k8s::RestClient> client;
  std::shared_ptr<k8s::Metrics> metrics;  // optional
  std::size_t workers = 8;
  // When set, every successful write's answer is put into the cache before the writer hears back
  // (read-your-writes: its next reconcile sees what it wrote).
  std::optional<store_actor> store;
};

api_client_actor spawn_api_client(caf::actor_system& system, ApiClientConfig config);

}  // namespace nvcre::actors
