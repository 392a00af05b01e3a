#pragma once
// The manager's Prometheus metrics (prefix `nvcre_`): reconciles by controller and result,
// reconcile duration, queue depth, live reconciler actors, API requests by verb and code, watch
// restarts. Thread-safe (prometheus-cpp metrics are atomic); shared by every actor.
#include <memory>
#include <string>
#include <string_view>

namespace prometheus {
class Registry;
}

namespace nvcre::k8s {

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  void reconcile_finished(const std::string& controller, std::string_view result);
  void observe_reconcile_seconds(const std::string& controller, double seconds);
  void set_queue_depth(const std::string& controller, std::size_t depth);
  void reconcilers_changed(const std::string& controller, int delta);
  void api_request(std::string_view verb, int code);
  void watch_restart(const std::string& kind);

  std::shared_ptr<prometheus::Registry> registry() const;
  // The text exposition format, for tests and for the probe server's /metrics fallback.
  std::string render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::k8s
