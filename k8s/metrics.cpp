#include "k8s/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <sstream>

namespace nvcre::k8s {

struct Metrics::Impl {
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  prometheus::Family<prometheus::Counter>& reconciles =
      prometheus::BuildCounter()
          .Name("nvcre_reconcile_total")
          .Help("Reconcile passes by controller and result")
          .Register(*registry);
  prometheus::Family<prometheus::Histogram>& duration =
      prometheus::BuildHistogram()
          .Name("nvcre_reconcile_duration_seconds")
          .Help("Duration of one reconcile pass")
          .Register(*registry);
  prometheus::Family<prometheus::Gauge>& depth = prometheus::BuildGauge()
                                                     .Name("nvcre_workqueue_depth")
                                                     .Help("Keys ready in the work queue")
                                                     .Register(*registry);
  prometheus::Family<prometheus::Gauge>& reconcilers =
      prometheus::BuildGauge()
          .Name("nvcre_reconciler_actors")
          .Help("Live per-object reconciler actors")
          .Register(*registry);
  prometheus::Family<prometheus::Counter>& requests =
      prometheus::BuildCounter()
          .Name("nvcre_api_requests_total")
          .Help("Kubernetes API requests by verb and code")
          .Register(*registry);
  prometheus::Family<prometheus::Counter>& watch_restarts =
      prometheus::BuildCounter()
          .Name("nvcre_watch_restarts_total")
          .Help("Watches re-opened or relisted, by kind")
          .Register(*registry);
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

void Metrics::reconcile_finished(const std::string& controller, std::string_view result) {
  impl_->reconciles.Add({{"controller", controller}, {"result", std::string(result)}}).Increment();
}

void Metrics::observe_reconcile_seconds(const std::string& controller, double seconds) {
  static const prometheus::Histogram::BucketBoundaries buckets{0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                               0.25,  0.5,   1,    2.5,   5,    10};
  impl_->duration.Add({{"controller", controller}}, buckets).Observe(seconds);
}

void Metrics::set_queue_depth(const std::string& controller, std::size_t depth) {
  impl_->depth.Add({{"controller", controller}}).Set(static_cast<double>(depth));
}

void Metrics::reconcilers_changed(const std::string& controller, int delta) {
  impl_->reconcilers.Add({{"controller", controller}}).Increment(delta);
}

void Metrics::api_request(std::string_view verb, int code) {
  impl_->requests.Add({{"verb", std::string(verb)}, {"code", std::to_string(code)}}).Increment();
}

void Metrics::watch_restart(const std::string& kind) {
  impl_->watch_restarts.Add({{"kind", kind}}).Increment();
}

std::shared_ptr<prometheus::Registry> Metrics::registry() const { return impl_->registry; }

std::string Metrics::render() const {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, impl_->registry->Collect());
  return out.str();
}

}  // namespace nvcre::k8s
