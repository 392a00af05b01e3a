// `nvcrectl workflow render` through the real command function: a hand-written Workflow
// (input_workflow.yaml) resolved against mock nodes (input_flags.yaml {platform, gpuArch}) or a
// nodes file (input_nodes.yaml); suite workflow-render-errors holds the flag and input errors.
#include <gtest/gtest.h>

#include <sstream>

#include "jsonkit/yaml.hpp"
#include "cli/workflow_commands.hpp"
#include "test/support/golden.hpp"
#include "test/support/golden_inputs.hpp"

using nvcre::testing::flag;
using nvcre::testing::GoldenCase;

namespace {

std::string render(const GoldenCase& golden_case) {
  nvcre::cli::WorkflowRenderOptions options;
  options.file = (golden_case.dir / "input_workflow.yaml").string();
  options.platform = flag(golden_case, "platform");
  options.gpu_arch = flag(golden_case, "gpuArch");
  if (golden_case.has_input("input_nodes.yaml"))
    options.nodes_file = (golden_case.dir / "input_nodes.yaml").string();
  const std::string output = flag(golden_case, "output");
  if (!output.empty()) options.output = output;
  std::ostringstream out;
  nvcre::cli::render_workflow(options, out);
  return out.str();
}

class WorkflowRender : public ::testing::TestWithParam<GoldenCase> {};
class WorkflowRenderErrors : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(WorkflowRender, Output) { nvcre::testing::check_golden(GetParam(), render); }
TEST_P(WorkflowRenderErrors, Message) { nvcre::testing::check_golden(GetParam(), render); }

NVCRE_GOLDEN_SUITE(WorkflowRender, "workflow-render");
NVCRE_GOLDEN_SUITE(WorkflowRenderErrors, "workflow-render-errors");
