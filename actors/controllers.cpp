#include "actors/controllers.hpp"

#include "certification/reconciler.hpp"
#include "job/job_gauges.hpp"
#include "job/job_reconciler.hpp"
#include "job/job_watches.hpp"
#include "measurement/bandwidth_reconciler.hpp"
#include "measurement/goodput_reconciler.hpp"
#include "measurement/measurement_gauges.hpp"
#include "measurement/measurement_watches.hpp"
#include "reconcile/lifecycle_gauges.hpp"
#include "workflow/topology_gauges.hpp"
#include "workflow/workflow_reconciler.hpp"
#include "workloadrun/reconciler.hpp"

namespace nvcre::actors {
namespace {

constexpr const char* kNvcre = "nvcre.nvidia.com/v1alpha1";
constexpr const char* kTrainer = "trainer.kubeflow.org/v1alpha1";

reconcile::Result reconcile_certification(const reconcile::Context& context) {
  return certification::reconcile_certification(context);
}

}  // namespace

std::vector<WatchSpec> nvcre_watches() {
  return {
      {{"nvcre.nvidia.com", "v1alpha1", "certifications", true}, kNvcre, "Certification", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "workloadruns", true}, kNvcre, "WorkloadRun", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "workflows", true}, kNvcre, "Workflow", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "jobs", true}, kNvcre, "Job", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "bandwidthmeasurements", true},
       kNvcre,
       "BandwidthMeasurement",
       ""},
      {{"nvcre.nvidia.com", "v1alpha1", "goodputmeasurements", true},
       kNvcre,
       "GoodputMeasurement",
       ""},
      {{"nvcre.nvidia.com", "v1alpha1", "logprofiles", false}, kNvcre, "LogProfile", ""},
      {{"trainer.kubeflow.org", "v1alpha1", "trainjobs", true}, kTrainer, "TrainJob", ""},
      // The Workflows' dependency copies (tracking label), so cleanup reads them from the cache
      // instead of a live GET each (metadata only: k8s/cache_transform.hpp).
      {{"trainer.kubeflow.org", "v1alpha1", "trainingruntimes", true},
       kTrainer,
       "TrainingRuntime",
       "nvcre.nvidia.com/workflow"},
      {{"", "v1", "nodes", false}, "v1", "Node", "nvidia.com/gpu.present=true"},
      // Not label-scoped: MPI launcher pods lack the Job label.
      {{"", "v1", "pods", true}, "v1", "Pod", ""},
      {{"", "v1", "configmaps", true}, "v1", "ConfigMap", "app.kubernetes.io/managed-by=nvcre"},
  };
}

std::vector<ControllerSpec> nvcre_controllers() {
  std::vector<ControllerSpec> specs;
  // A Certification's category builds are answered by the build services (wanted_builds).
  specs.push_back(
      {"certification", kNvcre, "Certification", {"Workflow"}, reconcile_certification});
  specs.push_back(
      {"workloadrun", kNvcre, "WorkloadRun", {"Workflow"}, workloadrun::reconcile_workloadrun});
  specs.push_back({"workflow", kNvcre, "Workflow", {"Job"}, workflow::reconcile_workflow});
  specs.push_back({"job",
                   kNvcre,
                   "Job",
                   {"TrainJob"},
                   job::reconcile_job,
                   // Watches(Node): the Jobs whose pods run on a changed node (health rule).
                   // Watches(BandwidthMeasurement): a measurement's Job judges its thresholds.
                   [](const ChangeNotice& notice, const k8s::CacheView& cache) {
                     std::vector<std::string> keys;
                     if (auto key = measurement::measured_job_key(notice.ref, cache);
                         !key.empty()) {
                       keys.push_back(std::move(key));
                       return keys;
                     }
                     if (notice.ref.kind != "Node") return keys;
                     for (const auto& job : job::jobs_on_node(cache, notice.ref.name)) {
                       keys.push_back(k8s::object_key(job.ns, job.name));
                     }
                     return keys;
                   }});
  specs.push_back({std::string(measurement::kBandwidthController),
                   kNvcre,
                   "BandwidthMeasurement",
                   {},
                   measurement::reconcile_bandwidth_measurement,
                   [](const ChangeNotice& notice, const k8s::CacheView& cache) {
                     return measurement::measurements_of_job(notice.ref, cache,
                                                             "BandwidthMeasurement");
                   },
                   ControllerClass::Measurement});
  specs.push_back({std::string(measurement::kGoodputController),
                   kNvcre,
                   "GoodputMeasurement",
                   {},
                   measurement::reconcile_goodput_measurement,
                   [](const ChangeNotice& notice, const k8s::CacheView& cache) {
                     return measurement::measurements_of_job(notice.ref, cache,
                                                             "GoodputMeasurement");
                   },
                   ControllerClass::Measurement});
  return specs;
}

decltype(ManagerOptions::gauge_projections) nvcre_gauge_projections() {
  // The projections that read their object alone.
  const auto object_only = [](auto projection) -> k8s::GaugeProjection {
    return [projection](const boost::json::value& object, const k8s::CacheView&) {
      return projection(object);
    };
  };
  return {{"BandwidthMeasurement", object_only(measurement::measurement_gauges)},
          {"GoodputMeasurement", object_only(measurement::measurement_gauges)},
          {"Job", object_only(job::job_gauges)},
          {"Workflow", workflow::workflow_gauges},
          {"Certification", object_only(reconcile::certification_status_gauges)}};
}

}  // namespace nvcre::actors
