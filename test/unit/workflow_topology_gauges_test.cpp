// The topology gauges a Workflow's status projects (workflow/topology_gauges.hpp): one series of
// value 1 per node, validated for the nodes of Succeeded groups, failed for the nodes of Failed
// groups, a node in both counted failed only; nothing without a topology key; nodes of a group
// spanning several domains left out.
#include "jsonkit/yaml.hpp"
#include "k8s/metrics.hpp"
#include "workflow/topology_gauges.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using nvcre::jsonkit::parse_yaml;
using nvcre::workflow::topology_gauges;

// "name{domain,node}" of each sample, in output order; every sample must carry the Workflow's
// namespace, name and topology key, and value 1.
std::vector<std::string> series(const std::vector<nvcre::k8s::GaugeSample>& samples) {
  std::vector<std::string> out;
  for (const auto& sample : samples) {
    EXPECT_EQ(sample.labels.at("namespace"), "ns");
    EXPECT_EQ(sample.labels.at("workflow"), "wf");
    EXPECT_EQ(sample.labels.at("topology_key"), "example.com/zone");
    EXPECT_EQ(sample.labels.size(), 5u);
    EXPECT_EQ(sample.value, 1.0);
    out.push_back(sample.name + "{" + sample.labels.at("domain") + "," + sample.labels.at("node") +
                  "}");
  }
  return out;
}

const char* kTwoZones = R"(
kind: Workflow
metadata: {name: wf, namespace: ns}
spec: {orchestration: {topology: {topologyKey: example.com/zone}}}
status:
  orchestration:
    groups:
    - {name: group-0, nodes: [n1, n2], domains: [zone-a], phase: Succeeded}
    - {name: group-1, nodes: [n3, n4], domains: [zone-b], phase: Failed}
    - {name: group-2, nodes: [n2, n3], domains: [zone-a, zone-b], phase: Succeeded}
    - {name: group-3, nodes: [n5], domains: [zone-c], phase: Running}
)";

TEST(WorkflowTopologyGauges, SucceededGroupsValidateAndFailedGroupsFailTheirNodes) {
  EXPECT_EQ(
      series(topology_gauges(parse_yaml(kTwoZones))),
      (std::vector<std::string>{
          "nvcre_topology_validated_nodes{zone-a,n1}", "nvcre_topology_validated_nodes{zone-a,n2}",
          "nvcre_topology_failed_nodes{zone-b,n3}", "nvcre_topology_failed_nodes{zone-b,n4}"}));
}

TEST(WorkflowTopologyGauges, ANodeOfAFailedGroupIsNotValidatedByAnother) {
  auto workflow = parse_yaml(kTwoZones);
  auto& groups = workflow.at("status").at("orchestration").at("groups").as_array();
  groups[0].as_object()["nodes"] = boost::json::array{"n1", "n3"};
  EXPECT_EQ(series(topology_gauges(workflow)),
            (std::vector<std::string>{"nvcre_topology_validated_nodes{zone-a,n1}",
                                      "nvcre_topology_failed_nodes{zone-b,n3}",
                                      "nvcre_topology_failed_nodes{zone-b,n4}"}));
}

TEST(WorkflowTopologyGauges, NoTopologyKeyOrNoGroupsProjectNothing) {
  auto without_key = parse_yaml(kTwoZones);
  without_key.at("spec").at("orchestration").as_object().erase("topology");
  EXPECT_TRUE(topology_gauges(without_key).empty());
  EXPECT_TRUE(topology_gauges(parse_yaml(R"(
kind: Workflow
metadata: {name: wf, namespace: ns}
spec: {orchestration: {topology: {topologyKey: example.com/zone}}}
)"))
                  .empty());
}

TEST(WorkflowTopologyGauges, TheFamiliesAreDeclared) {
  const auto& families = nvcre::k8s::object_gauge_families();
  EXPECT_TRUE(families.contains("nvcre_topology_validated_nodes"));
  EXPECT_TRUE(families.contains("nvcre_topology_failed_nodes"));
}

}  // namespace
