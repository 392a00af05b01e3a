// Golden suite for clusterinfo/: `nvcrectl cluster info` over recorded nodes.
//   cluster-info   input.yaml {nodes: [Node], topologyKey?} -> the table, then the -o json
//                  document (expected.txt); `error` for a cluster without GPU nodes.
#include "clusterinfo/cluster_info.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::testing::GoldenCase;

class ClusterInfoGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ClusterInfoGolden, RendersTableAndJson) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::value input = nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml"));
    std::vector<json::value> nodes;
    if (const auto* list = input.as_object().if_contains("nodes"); list && list->is_array())
      for (const auto& node : list->as_array()) nodes.push_back(node);
    nvcre::clusterinfo::Options options;
    if (const auto* key = input.as_object().if_contains("topologyKey"))
      options.topology_key = std::string(key->as_string());
    const auto info = nvcre::clusterinfo::build_cluster_info(std::move(nodes), options);
    return nvcre::clusterinfo::render_text(info, false) + "\n--- -o json ---\n" +
           nvcre::jsonkit::to_pretty_json(nvcre::clusterinfo::to_json(info));
  });
}

NVCRE_GOLDEN_SUITE(ClusterInfoGolden, "cluster-info");

}  // namespace
