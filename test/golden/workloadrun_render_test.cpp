// `nvcrectl workloadrun render` through the real command function. Suites:
//   workloadrun-render: input_flags.yaml {platform, gpuArch, output, view}; view `whole` (default)
//     records the whole rendered output, view `projection` records only what the WorkloadRun build
//     decides (trainer, job spec, orchestration, runtime containers and scheduling, extra
//     dependencies), so edits to the shared runtime builders do not churn every case;
//   workloadrun-render-errors: bad inputs, each with the reference CLI's message.
// Inputs: input.yaml (the WorkloadRun; absent = a missing file) and optional input_flags.yaml.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <sstream>

#include "jsonkit/yaml.hpp"
#include "cli/workloadrun_commands.hpp"
#include "test/support/golden.hpp"
#include "test/support/golden_inputs.hpp"

namespace json = boost::json;
using nvcre::testing::find;
using nvcre::testing::flag;
using nvcre::testing::GoldenCase;
using nvcre::testing::or_null;

namespace {

std::string render(const GoldenCase& golden_case, const std::string& output) {
  nvcre::cli::WorkloadRunRenderOptions options;
  options.file = golden_case.has_input("input.yaml") ? (golden_case.dir / "input.yaml").string()
                                                     : (golden_case.dir / "missing.yaml").string();
  options.platform = flag(golden_case, "platform");
  options.gpu_arch = flag(golden_case, "gpuArch");
  options.output = output;
  std::ostringstream out;
  nvcre::cli::render_workloadrun(options, out);
  return out.str();
}

// Per TrainingRuntime replicated job: the pod scheduling fields, and per container what the build
// and the overrides put there (env, resources, mounts, capabilities); other dependencies whole.
json::value dependency_projection(const json::value& dependency) {
  if (or_null(find(dependency, {"kind"})) != json::value("TrainingRuntime")) return dependency;
  json::object jobs;
  const auto* replicated = find(dependency, {"spec", "template", "spec", "replicatedJobs"});
  for (const auto& job : replicated ? replicated->as_array() : json::array{}) {
    const auto* pod = find(job, {"template", "spec", "template", "spec"});
    json::object containers;
    const auto* list = pod ? find(*pod, {"containers"}) : nullptr;
    for (const auto& container : list ? list->as_array() : json::array{}) {
      containers[std::string(find(container, {"name"})->as_string())] =
          json::object{{"env", or_null(find(container, {"env"}))},
                       {"resources", or_null(find(container, {"resources"}))},
                       {"volumeMounts", or_null(find(container, {"volumeMounts"}))},
                       {"securityContext", or_null(find(container, {"securityContext"}))}};
    }
    jobs[std::string(find(job, {"name"})->as_string())] = json::object{
        {"jobLabels", or_null(find(job, {"template", "metadata", "labels"}))},
        {"podLabels", or_null(find(job, {"template", "spec", "template", "metadata", "labels"}))},
        {"schedulerName", pod ? or_null(find(*pod, {"schedulerName"})) : json::value(nullptr)},
        {"initContainers", pod ? or_null(find(*pod, {"initContainers"})) : json::value(nullptr)},
        {"volumes", pod ? or_null(find(*pod, {"volumes"})) : json::value(nullptr)},
        {"tolerations", pod ? or_null(find(*pod, {"tolerations"})) : json::value(nullptr)},
        {"containers", std::move(containers)}};
  }
  return json::object{{"kind", "TrainingRuntime"},
                      {"name", or_null(find(dependency, {"metadata", "name"}))},
                      {"mlPolicy", or_null(find(dependency, {"spec", "mlPolicy"}))},
                      {"replicatedJobs", std::move(jobs)}};
}

json::value projection(const json::value& workflow) {
  json::array dependencies;
  const auto* list = find(workflow, {"spec", "dependencies"});
  for (const auto& dependency : list ? list->as_array() : json::array{}) {
    dependencies.push_back(dependency_projection(dependency));
  }
  json::value job_spec = or_null(find(workflow, {"spec", "jobTemplate", "spec"}));
  return json::object{{"metadata", or_null(find(workflow, {"metadata"}))},
                      {"jobSpec", std::move(job_spec)},
                      {"orchestration", or_null(find(workflow, {"spec", "orchestration"}))},
                      {"validation", or_null(find(workflow, {"spec", "validation"}))},
                      {"gangScheduler", or_null(find(workflow, {"spec", "gangScheduler"}))},
                      {"overrides", or_null(find(workflow, {"spec", "overrides"}))},
                      {"dependencies", std::move(dependencies)}};
}

class WorkloadRunRender : public ::testing::TestWithParam<GoldenCase> {};
class WorkloadRunRenderErrors : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(WorkloadRunRender, Output) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    if (flag(golden_case, "view") == "projection") {
      return nvcre::jsonkit::to_pretty_json(projection(json::parse(render(golden_case, "json"))));
    }
    const std::string output = flag(golden_case, "output");
    return render(golden_case, output.empty() ? "yaml" : output);
  });
}

TEST_P(WorkloadRunRenderErrors, Message) {
  nvcre::testing::check_golden(
      GetParam(), [](const GoldenCase& golden_case) { return render(golden_case, "yaml"); });
}

NVCRE_GOLDEN_SUITE(WorkloadRunRender, "workloadrun-render");
NVCRE_GOLDEN_SUITE(WorkloadRunRenderErrors, "workloadrun-render-errors");
