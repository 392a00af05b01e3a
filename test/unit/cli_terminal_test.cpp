// NO_COLOR and friends: when nvcrectl may colour its output, and that a coloured table differs
// from the plain one only by escape sequences.
#include "cli/terminal.hpp"
#include "clusterinfo/cluster_info.hpp"
#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace nvcre::cli {
namespace {

TEST(CliTerminal, ColorOnlyOnATerminalWithoutNoColor) {
  EXPECT_TRUE(color_enabled(nullptr, "xterm-256color", true));
  EXPECT_FALSE(color_enabled(nullptr, "xterm-256color", false));  // a pipe or a file
  EXPECT_FALSE(color_enabled("1", "xterm-256color", true));
  EXPECT_FALSE(color_enabled("anything", nullptr, true));
  // no-color.org: an empty NO_COLOR does not count as set.
  EXPECT_TRUE(color_enabled("", "xterm", true));
  EXPECT_FALSE(color_enabled(nullptr, "dumb", true));
}

TEST(CliTerminal, ColouredClusterInfoIsThePlainTextPlusEscapes) {
  const auto nodes = jsonkit::parse_yaml(R"(
- metadata: {name: n1, labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
  spec: {providerID: "aws:///us-east-1a/i-1", unschedulable: true}
  status: {allocatable: {nvidia.com/gpu: "8"}, conditions: [{type: Ready, status: "True"}]}
- metadata: {name: n2, labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
  spec: {providerID: "aws:///us-east-1a/i-2"}
  status: {allocatable: {nvidia.com/gpu: "8"}, conditions: [{type: Ready, status: "True"}]}
)");
  const auto info = clusterinfo::build_cluster_info(
      std::vector<boost::json::value>(nodes.as_array().begin(), nodes.as_array().end()), {});
  const std::string plain = clusterinfo::render_text(info, false);
  const std::string colored = clusterinfo::render_text(info, true);
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  EXPECT_NE(colored.find("\033[33mExcluded:"), std::string::npos) << colored;
  EXPECT_EQ(std::regex_replace(colored, std::regex("\033\\[[0-9;]*m"), ""), plain);
}

}  // namespace
}  // namespace nvcre::cli
