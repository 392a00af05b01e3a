#include "k8s/metrics.hpp"

#include "k8s/object_gauges.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <mutex>
#include <sstream>
#include <stdexcept>

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
  prometheus::Family<prometheus::Gauge>& cache_objects =
      prometheus::BuildGauge()
          .Name("nvcre_cache_objects")
          .Help("Objects in the informer cache, by apiVersion and kind")
          .Register(*registry);
  prometheus::Family<prometheus::Counter>& requests =
      prometheus::BuildCounter()
          .Name("nvcre_api_requests_total")
          .Help("Kubernetes API requests by verb, kind and code")
          .Register(*registry);
  prometheus::Family<prometheus::Counter>& watch_restarts =
      prometheus::BuildCounter()
          .Name("nvcre_watch_restarts_total")
          .Help("Watches re-opened or relisted, by kind")
          .Register(*registry);

  std::mutex objects_mutex;
  ObjectGauges object_gauges;  // exposed beside the registry's families (render)
};

const std::map<std::string, std::string>& object_gauge_families() {
  static const std::map<std::string, std::string> families{
      {"nvcre_nccl_busbw_gbs", "Bus bandwidth (GB/s) of a running NCCL test, per message size"},
      {"nvcre_nccl_algbw_gbs",
       "Algorithm bandwidth (GB/s) of a running NCCL test, per message size"},
      {"nvcre_nccl_busbw_gbps", "Deprecated alias of nvcre_nccl_busbw_gbs (the values are GB/s)"},
      {"nvcre_nccl_algbw_gbps", "Deprecated alias of nvcre_nccl_algbw_gbs (the values are GB/s)"},
      {"nvcre_goodput_ratio", "Goodput ratio (0-1) of a training Job"},
      {"nvcre_goodput_avg_tflops_per_gpu", "Average TFLOPS per GPU of a running training Job"},
      {"nvcre_goodput_avg_step_time_seconds",
       "Average step time (s, without warmup) of a running training Job"},
      {"nvcre_goodput_reschedule_time_seconds",
       "Cumulative reschedule time (s) of a running training Job"},
      {"nvcre_goodput_resume_time_seconds", "Cumulative resume time (s) of a running training Job"},
      {"nvcre_goodput_checkpoint_save_time_seconds",
       "Cumulative checkpoint save time (s) of a running training Job"},
      {"nvcre_goodput_lost_work_time_seconds",
       "Cumulative work lost to interruptions (s, since the last checkpoint) of a running training "
       "Job"},
      {"nvcre_goodput_training_time_seconds",
       "Training wall-clock time (s) of a running training Job"},
      {"nvcre_goodput_warmup_time_seconds", "Warmup step time (s) of a running training Job"},
      {"nvcre_goodput_non_warmup_time_seconds",
       "Non-warmup step time (s) of a running training Job"},
      {"nvcre_job_status",
       "Current status of NVCRE jobs (1 = current status, 0 = not current status)"},
      {"nvcre_workflow_status",
       "Current status of NVCRE Workflows (1 = current status, 0 = not current status)"},
      {"nvcre_certification_status",
       "Current status of NVCRE Certifications (1 = current status, 0 = not current status)"},
      {"nvcre_job_failed_nodes", "Nodes with a detected hardware failure, per Job"},
      {"nvcre_topology_validated_nodes",
       "Nodes that passed burn-in validation per topology domain (1 per node)"},
      {"nvcre_topology_failed_nodes",
       "Nodes that failed burn-in validation per topology domain (1 per node)"},
  };
  return families;
}

const std::map<std::string, std::string>& object_counter_families() {
  static const std::map<std::string, std::string> families{
      {"nvcre_hardware_failed_jobs_total", "Jobs that detected a hardware failure"},
      {"nvcre_hardware_failures_detected_total",
       "Nodes a Job's node health rule detected as failed, per node"},
  };
  return families;
}

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

void Metrics::set_cache_objects(const std::string& api_version, const std::string& kind,
                                std::size_t count) {
  impl_->cache_objects.Add({{"api_version", api_version}, {"kind", kind}})
      .Set(static_cast<double>(count));
}

void Metrics::api_request(std::string_view verb, std::string_view kind, int code) {
  impl_->requests
      .Add({{"verb", std::string(verb)},
            {"kind", std::string(kind)},
            {"code", std::to_string(code)}})
      .Increment();
}

void Metrics::watch_restart(const std::string& kind) {
  impl_->watch_restarts.Add({{"kind", kind}}).Increment();
}

void Metrics::replace_object_gauges(const std::string& object_key,
                                    const std::vector<GaugeSample>& samples) {
  std::lock_guard lock(impl_->objects_mutex);
  impl_->object_gauges.replace(object_key, samples);
}

std::string Metrics::render() const {
  std::ostringstream out;
  auto families = impl_->registry->Collect();
  {
    std::lock_guard lock(impl_->objects_mutex);
    for (auto& family : impl_->object_gauges.collect()) families.push_back(std::move(family));
  }
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

}  // namespace nvcre::k8s
