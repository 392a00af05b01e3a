// `nvcrectl certification render` through the real command function. Suites:
//   certification-render-gang: the seed PR's render families; output is a projection of what gang
//     scheduling touches (so catalog edits elsewhere do not churn these files);
//   certification-render: whole rendered output for a few representative inputs;
//   certification-render-errors: bad inputs, each with the reference CLI's message.
// Inputs: input.yaml (the Certification; absent = a missing file) and optional input_flags.yaml
// {platform, gpuArch, output}.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <filesystem>
#include <sstream>

#include "jsonkit/yaml.hpp"
#include "cli/certification_commands.hpp"
#include "test/support/golden.hpp"
#include "test/support/golden_inputs.hpp"

namespace json = boost::json;
using nvcre::testing::find;
using nvcre::testing::flag;
using nvcre::testing::GoldenCase;
using nvcre::testing::or_null;

namespace {

std::string render(const GoldenCase& golden_case, const std::string& output) {
  nvcre::cli::RenderOptions options;
  options.file = golden_case.has_input("input.yaml") ? (golden_case.dir / "input.yaml").string()
                                                     : (golden_case.dir / "missing.yaml").string();
  options.platform = flag(golden_case, "platform");
  options.gpu_arch = flag(golden_case, "gpuArch");
  options.output = output;
  std::ostringstream out;
  nvcre::cli::render_certification(options, out);
  return out.str();
}

// What gang scheduling touches, per Workflow: labels, persisted intent, workload labels, and per
// TrainingRuntime replicated job the pod schedulerName and the job / pod template labels.
json::value gang_projection(const json::value& workflows) {
  json::object projection;
  for (const auto& workflow : workflows.as_array()) {
    json::object entry;
    entry["gangScheduler"] = or_null(find(workflow, {"spec", "gangScheduler"}));
    entry["workloadLabels"] =
        or_null(find(workflow, {"spec", "jobTemplate", "spec", "workloadMetadata", "labels"}));
    json::object runtimes;
    const auto* dependencies = find(workflow, {"spec", "dependencies"});
    for (const auto& dependency : dependencies ? dependencies->as_array() : json::array{}) {
      if (or_null(find(dependency, {"kind"})) != json::value("TrainingRuntime")) continue;
      json::object jobs;
      const auto* replicated = find(dependency, {"spec", "template", "spec", "replicatedJobs"});
      for (const auto& job : replicated ? replicated->as_array() : json::array{}) {
        jobs[std::string(find(job, {"name"})->as_string())] = json::object{
            {"schedulerName",
             or_null(find(job, {"template", "spec", "template", "spec", "schedulerName"}))},
            {"jobLabels", or_null(find(job, {"template", "metadata", "labels"}))},
            {"podLabels",
             or_null(find(job, {"template", "spec", "template", "metadata", "labels"}))}};
      }
      runtimes[std::string(find(dependency, {"metadata", "name"})->as_string())] = std::move(jobs);
    }
    entry["trainingRuntimes"] = std::move(runtimes);
    projection[std::string(find(workflow, {"metadata", "name"})->as_string())] = std::move(entry);
  }
  return projection;
}

class CertificationRenderGang : public ::testing::TestWithParam<GoldenCase> {};
class CertificationRender : public ::testing::TestWithParam<GoldenCase> {};
class CertificationRenderErrors : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(CertificationRenderGang, Projection) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    return nvcre::jsonkit::to_pretty_json(
        gang_projection(json::parse(render(golden_case, "json"))));
  });
}

TEST_P(CertificationRender, WholeOutput) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const std::string output = flag(golden_case, "output");
    return render(golden_case, output.empty() ? "yaml" : output);
  });
}

TEST_P(CertificationRenderErrors, Message) {
  nvcre::testing::check_golden(
      GetParam(), [](const GoldenCase& golden_case) { return render(golden_case, "yaml"); });
}

NVCRE_GOLDEN_SUITE(CertificationRenderGang, "certification-render-gang");
NVCRE_GOLDEN_SUITE(CertificationRender, "certification-render");
NVCRE_GOLDEN_SUITE(CertificationRenderErrors, "certification-render-errors");
