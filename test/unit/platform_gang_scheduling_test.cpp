#include "api/common_types.hpp"
#include "platform/gang_scheduling.hpp"
#include "platform/gang_validation.hpp"
#include "platform/runtime_builders.hpp"

#include <gtest/gtest.h>

namespace api = nvcre::api;
namespace json = boost::json;
using namespace nvcre::platform;

namespace {

api::GangSchedulerSpec gang(std::string name, std::string queue = {}, std::string key = {}) {
  return api::GangSchedulerSpec{std::move(name), std::move(queue), std::move(key)};
}

api::JobTemplateSpec job_template_for(const std::string& runtime_name) {
  api::JobTemplateSpec job_template;
  job_template.spec.workload.trainJob = json::object{
      {"runtimeRef", json::object{{"kind", "TrainingRuntime"}, {"name", runtime_name}}}};
  return job_template;
}

}  // namespace

TEST(PlatformGangScheduler, ResolveFillsDefaultsAndKeepsGivenValues) {
  EXPECT_EQ(resolve_gang_scheduler(std::nullopt), std::nullopt);
  EXPECT_EQ(resolve_gang_scheduler(gang("", "q")), std::nullopt);
  EXPECT_EQ(resolve_gang_scheduler(gang("kai-scheduler")),
            gang("kai-scheduler", "default-queue", "kai.scheduler/queue"));
  EXPECT_EQ(resolve_gang_scheduler(gang("runai-scheduler", "team-a", "runai/queue")),
            gang("runai-scheduler", "team-a", "runai/queue"));
}

TEST(PlatformGangScheduler, ResolveIsIdempotent) {
  const auto once = resolve_gang_scheduler(gang("kai-scheduler", "", "runai/queue"));
  EXPECT_EQ(resolve_gang_scheduler(once), once);
}

TEST(PlatformGangScheduler, BuilderOutputPassesTheValidatorForEveryFramework) {
  for (const auto& scheduler : {std::string("kai-scheduler"), std::string("runai-scheduler")}) {
    RuntimeConfig config;
    config.entryName = "run";
    config.image = "img";
    config.gpusPerNode = 8;
    config.gangSchedulerName = scheduler;
    config.gangSchedulerQueue = "q";
    const auto intent = resolve_gang_scheduler(gang(scheduler, "q"));
    for (auto build : {build_torch_runtime, build_mpi_runtime, build_exec_runtime}) {
      const std::vector<api::DependencySpec> dependencies{build(config)};
      const auto check =
          validate_resolved_job_template(job_template_for("run-runtime"), dependencies, intent);
      EXPECT_FALSE(check.conflict) << scheduler << ": " << check.conflict->message;
      EXPECT_TRUE(check.queueLabelRestored);
    }
  }
}

TEST(PlatformGangScheduler, RewriteOfAnUnconfiguredBuildPassesTheValidator) {
  RuntimeConfig config;
  config.entryName = "run";
  config.image = "img";
  config.gpusPerNode = 4;
  std::vector<api::DependencySpec> dependencies{build_mpi_runtime(config)};
  const auto intent = resolve_gang_scheduler(gang("kai-scheduler", "burnin"));
  EXPECT_TRUE(validate_resolved_job_template(job_template_for("run-runtime"), dependencies, intent)
                  .conflict);
  apply_gang_scheduler_to_dependencies(dependencies, intent);
  const auto check =
      validate_resolved_job_template(job_template_for("run-runtime"), dependencies, intent);
  EXPECT_FALSE(check.conflict) << check.conflict->message;
  // The KAI rule turned the launcher's readiness gate into the wait-for-workers init container.
  const auto& launcher = dependencies[0]
                             .resource.at("spec")
                             .at("template")
                             .at("spec")
                             .at("replicatedJobs")
                             .at(1)
                             .as_object();
  EXPECT_FALSE(launcher.contains("dependsOn"));
  const auto& init =
      launcher.at("template").at("spec").at("template").at("spec").at("initContainers").as_array();
  ASSERT_EQ(init.size(), 2u);
  EXPECT_EQ(init[1].at("name"), "wait-for-workers");
  EXPECT_EQ(init[1].at("image"), "img");
}

TEST(PlatformGangScheduler, PreserveIsANoOpOnIdenticalDocuments) {
  RuntimeConfig config;
  config.entryName = "run";
  config.image = "img";
  config.gangSchedulerName = "kai-scheduler";
  const auto runtime = build_torch_runtime(config).resource;
  EXPECT_EQ(preserve_scheduling_fields(runtime, runtime, gang("kai-scheduler")), runtime);
}
