#include "actors/controllers.hpp"

#include "actors/build_services.hpp"
#include "catalog/catalog.hpp"
#include "certification/reconciler.hpp"
#include "workflow/job_reconciler.hpp"
#include "workflow/job_watches.hpp"
#include "workflow/workflow_reconciler.hpp"
#include "workloadrun/reconciler.hpp"

namespace nvcre::actors {
namespace {

constexpr const char* kNvcre = "nvcre.nvidia.com/v1alpha1";
constexpr const char* kTrainer = "trainer.kubeflow.org/v1alpha1";

k8s::ReconcileResult plan_only(k8s::ReconcilePlan plan) {
  k8s::ReconcileResult result;
  result.plan = std::move(plan);
  return result;
}

k8s::ReconcileResult reconcile_certification_asking(const k8s::ReconcileContext& c) {
  const k8s::ServiceAnswers* answers = c.service_answers;
  auto lookup = [answers](const std::string& key) -> const certification::CategoryBuildAnswer* {
    if (answers == nullptr) return nullptr;
    auto found = answers->find(key);
    return found == answers->end() ? nullptr : std::any_cast<certification::CategoryBuildAnswer>(&found->second);
  };
  auto result = certification::reconcile_certification(
      {c.object, c.cache, c.live, c.outcome, c.now, catalog::Catalog::builtin(), lookup});
  auto out = plan_only(std::move(result.plan));
  if (result.wanted_build) {
    std::string key = certification::build_request_key(*result.wanted_build);
    out.wanted_services.push_back({std::move(key), std::move(*result.wanted_build)});
  }
  return out;
}

}  // namespace

std::vector<WatchSpec> nvcre_watches() {
  return {
      {{"nvcre.nvidia.com", "v1alpha1", "certifications", true}, kNvcre, "Certification", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "workloadruns", true}, kNvcre, "WorkloadRun", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "workflows", true}, kNvcre, "Workflow", ""},
      {{"nvcre.nvidia.com", "v1alpha1", "jobs", true}, kNvcre, "Job", ""},
      {{"trainer.kubeflow.org", "v1alpha1", "trainjobs", true}, kTrainer, "TrainJob", ""},
      {{"", "v1", "nodes", false}, "v1", "Node", "nvidia.com/gpu.present=true"},
      // Not label-scoped: MPI launcher pods lack the Job label (controllers.md §9.2).
      {{"", "v1", "pods", true}, "v1", "Pod", ""},
      {{"", "v1", "configmaps", true}, "v1", "ConfigMap", "app.kubernetes.io/managed-by=nvcre"},
  };
}

std::vector<ControllerSpec> nvcre_controllers() {
  std::vector<ControllerSpec> specs;
  // Category builds are asked of the build services (category_build_asker): the want carries a
  // certification::CategoryBuildRequest, the answer a CategoryBuildAnswer, both opaque (std::any)
  // to the generic layers in between.
  specs.push_back({"certification", kNvcre, "Certification", {"Workflow"}, reconcile_certification_asking,
                   {}, category_build_asker()});
  specs.push_back({"workloadrun", kNvcre, "WorkloadRun", {"Workflow"}, [](const k8s::ReconcileContext& c) {
                     return plan_only(workloadrun::reconcile_workloadrun({c.object, c.cache, c.live, c.outcome, c.now}));
                   }});
  specs.push_back({"workflow", kNvcre, "Workflow", {"Job"}, [](const k8s::ReconcileContext& c) {
                     return plan_only(workflow::reconcile_workflow({c.object, c.cache, c.live, c.outcome, c.now}));
                   }});
  specs.push_back({"job", kNvcre, "Job", {"TrainJob"}, [](const k8s::ReconcileContext& c) {
                     auto result = workflow::reconcile_job({c.object, c.cache, c.live, c.outcome, c.now, c.pod_log_tails});
                     k8s::ReconcileResult out;
                     out.plan = std::move(result.plan);
                     for (const auto& want : result.wanted_pod_logs) {
                       out.wanted_pod_logs.push_back(k8s::PodLogWant{want.pod, want.container, want.previous});
                     }
                     return out;
                   },
                   // Watches(Node): the Jobs whose pods run on a changed node (health rule).
                   [](const ChangeNotice& notice, const k8s::CacheView& cache) {
                     std::vector<std::string> keys;
                     if (notice.ref.kind != "Node") return keys;
                     for (const auto& job : workflow::jobs_on_node(cache, notice.ref.name)) {
                       keys.push_back(job.ns + "/" + job.name);
                     }
                     return keys;
                   }});
  return specs;
}

}  // namespace nvcre::actors
