// Golden suites for platform/detect.hpp:
//   platform-detect          input.yaml {nodes: [Node]} -> each node's platform, DetectPlatform
//                            (first node) and the consistent variant (platform or error).
//   gpu-arch                 input.yaml {products?: [string], nodes?: [Node]} -> parsed products;
//                            per-node architecture, majority vote and primary selection.
//   platform-to-provider-id  input.yaml {platforms: [string], nodeSelector?: {}} -> the fake
//                            provider ID, the synthetic node and what detection makes of it.
#include "jsonkit/yaml.hpp"
#include "platform/detect.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace {

namespace json = boost::json;
using nvcre::testing::GoldenCase;
namespace platform = nvcre::platform;

std::vector<json::value> nodes_of(const json::value& input) {
  std::vector<json::value> nodes;
  if (const json::value* list = input.as_object().if_contains("nodes")) {
    for (const auto& node : list->as_array()) nodes.push_back(node);
  }
  return nodes;
}

json::array names(const std::vector<std::string>& items) {
  json::array array;
  for (const auto& item : items) array.emplace_back(item);
  return array;
}

class PlatformDetect : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(PlatformDetect, Detects) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto nodes = nodes_of(nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")));
    json::array per_node;
    for (const auto& node : nodes) {
      per_node.push_back(json::object{{"name", platform::NodeView(node).name()},
                                      {"platform", platform::detect_node_platform(node)}});
    }
    const auto consistent = platform::detect_platform_consistent(nodes);
    json::object consistent_out;
    if (consistent.ok()) {
      consistent_out["platform"] = consistent.platform;
    } else {
      consistent_out["error"] = consistent.error;
    }
    json::object out{{"nodes", per_node},
                     {"detectPlatform", platform::detect_platform(nodes)},
                     {"consistent", consistent_out}};
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(PlatformDetect, "platform-detect");

class GpuArch : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GpuArch, ParsesAndVotes) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::value input = nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml"));
    json::object out;
    if (const json::value* products = input.as_object().if_contains("products")) {
      json::array parsed;
      for (const auto& product : products->as_array()) {
        parsed.push_back(
            json::object{{"product", product},
                         {"architecture", platform::parse_gpu_product(product.as_string())}});
      }
      out["products"] = parsed;
    }
    const auto nodes = nodes_of(input);
    if (input.as_object().contains("nodes")) {
      json::array per_node;
      for (const auto& node : nodes) {
        per_node.push_back(json::object{{"name", platform::NodeView(node).name()},
                                        {"architecture", platform::node_gpu_architecture(node)}});
      }
      const auto selection = platform::select_primary_architecture(nodes);
      out["nodes"] = per_node;
      out["majority"] = platform::majority_gpu_architecture(nodes);
      out["primary"] = json::object{{"architecture", selection.architecture},
                                    {"kept", names(selection.kept)},
                                    {"excluded", names(selection.excluded)}};
    }
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(GpuArch, "gpu-arch");

class PlatformToProviderId : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(PlatformToProviderId, RoundTripsThroughDetection) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::value input = nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml"));
    std::map<std::string, std::string> selector;
    if (const json::value* labels = input.as_object().if_contains("nodeSelector")) {
      for (const auto& entry : labels->as_object())
        selector[entry.key()] = std::string(entry.value().as_string());
    }
    json::array out;
    for (const auto& name : input.at("platforms").as_array()) {
      const std::string platform_name(name.as_string());
      const json::value node = platform::synthetic_node(selector, platform_name);
      out.push_back(json::object{{"platform", platform_name},
                                 {"providerID", platform::fake_provider_id(platform_name)},
                                 {"detectedPlatform", platform::detect_node_platform(node)},
                                 {"node", node}});
    }
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(PlatformToProviderId, "platform-to-provider-id");

}  // namespace
