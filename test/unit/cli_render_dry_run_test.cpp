// The pure parts of `render --dry-run`: the validation table's layout and the uniform-product rule
// with its literal messages. The commands against kube-sim are
// test/integration/cli_cluster_test.cpp.
#include "cli/gpu_nodes.hpp"
#include "cli/render_dry_run.hpp"

#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace nvcre::cli {
namespace {

std::vector<boost::json::value> nodes(const std::string& yaml) {
  const auto list = jsonkit::parse_yaml(yaml);
  return {list.as_array().begin(), list.as_array().end()};
}

TEST(CliRenderDryRun, TableColumnsFollowTheWidestCell) {
  DryRunTable table{"cert-communication-nccl", {}};
  table.rows.push_back({"Workflow/cert-communication-nccl", "OK", ""});
  table.rows.push_back({"TrainJob/dry-run-workload", "INVALID", "namespaces \"x\" not found"});
  table.rows.push_back({"Job/dry-run-job", "WARN", "exists"});
  EXPECT_EQ(format_dry_run_table(table),
            "Dry-run validation: cert-communication-nccl\n"
            "RESOURCE                          STATUS   MESSAGE\n"
            "Workflow/cert-communication-nccl  OK\n"
            "TrainJob/dry-run-workload         INVALID  namespaces \"x\" not found\n"
            "Job/dry-run-job                   WARN     exists\n");
}

TEST(CliRenderDryRun, OneProductOrANamedError) {
  EXPECT_EQ(uniform_gpu_product(nodes(R"(
- metadata: {name: a, labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
- metadata: {name: b, labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
- metadata: {name: c}
)")),
            "NVIDIA-H100-80GB-HBM3");
  try {
    uniform_gpu_product(nodes(R"(
- metadata: {name: a, labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
- metadata: {name: b, labels: {nvidia.com/gpu.product: NVIDIA-B200}}
- metadata: {name: c, labels: {nvidia.com/gpu.product: NVIDIA-B200}}
)"));
    FAIL() << "mixed products must be rejected";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what())
                  .rfind("heterogeneous GPUs: NVIDIA-B200 (2), NVIDIA-H100-80GB-HBM3 (1)", 0),
              0u)
        << error.what();
  }
  EXPECT_THROW(
      {
        try {
          uniform_gpu_product(nodes("[{metadata: {name: a}}]"));
        } catch (const std::runtime_error& error) {
          EXPECT_STREQ(error.what(), "no nodes have nvidia.com/gpu.product label");
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace nvcre::cli
