#pragma once
// The manager's Prometheus metrics (prefix `nvcre_`): reconciles by controller and result,
// reconcile duration, queue depth, live reconciler actors, informer cache objects by kind, API
// requests by verb, kind and code, watch restarts. Thread-safe (prometheus-cpp metrics are atomic);
// shared by every actor.
#include <boost/json/fwd.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::k8s {

// One gauge series an object's state projects (e.g. a measurement's bus bandwidth per size).
struct GaugeSample {
  std::string name;  // a family declared in object_gauge_families()
  std::map<std::string, std::string> labels;
  double value = 0;
  bool operator==(const GaugeSample&) const = default;
};

class CacheView;
// The series an object projects, from the object and the cache it is in (a projection may read
// the objects it names, e.g. a Workflow's nodes for their topology labels).
using GaugeProjection =
    std::function<std::vector<GaugeSample>(const boost::json::value&, const CacheView&)>;

// The families object gauges may use: name -> help.
const std::map<std::string, std::string>& object_gauge_families();
// The counter families object state may project (name -> help): a series counts what the
// object's state records (e.g. 1 once a Job saw a hardware failure). It only grows while the
// object lives: a lower projected value leaves it as it is; it goes when the object does.
const std::map<std::string, std::string>& object_counter_families();

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
  // Objects of (apiVersion, kind) in the informer cache: after every object of a kind is deleted
  // it must come back to what the cluster still holds (a leak check reads it).
  void set_cache_objects(const std::string& api_version, const std::string& kind,
                         std::size_t count);
  // `kind` is the target's kind (Job, Event, ...): a controller's cost per object is read by kind.
  void api_request(std::string_view verb, std::string_view kind, int code);
  void watch_restart(const std::string& kind);
  // Makes `samples` the series of the object `object_key` ("kind/namespace/name"): series it had
  // and no longer has are removed, so a completed or deleted object leaves no stale gauge. A
  // sample of a counter family raises its counter to the value (never lowers it). Throws
  // std::invalid_argument for a family in neither object_gauge_families() nor
  // object_counter_families().
  void replace_object_gauges(const std::string& object_key,
                             const std::vector<GaugeSample>& samples);

  // The text exposition format, for tests and for the probe server's /metrics fallback.
  std::string render() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nvcre::k8s
