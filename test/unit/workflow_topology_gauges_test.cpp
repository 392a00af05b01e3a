// The topology gauges a Workflow's status projects (workflow/topology_gauges.hpp): one series of
// value 1 per node, validated for the nodes of Succeeded groups, failed for the nodes of Failed
// groups, a node in both counted failed only; nothing without a topology key; the nodes of a
// group spanning several domains counted under their own value of the key, or left out when it is
// unknown.
#include "jsonkit/yaml.hpp"
#include "k8s/metrics.hpp"
#include "k8s/object_cache.hpp"
#include "workflow/topology_gauges.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using nvcre::jsonkit::parse_yaml;
using nvcre::workflow::NodeDomains;
using nvcre::workflow::nodes_needing_own_domain;
using nvcre::workflow::topology_gauges;
using nvcre::workflow::workflow_gauges;

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

// A Workflow partitioned by example.com/zone, with no status yet.
const std::string kZoned = R"(
kind: Workflow
metadata: {name: wf, namespace: ns}
spec: {orchestration: {topology: {topologyKey: example.com/zone}}}
)";

const std::string kTwoZones = kZoned + R"(
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
      series(topology_gauges(parse_yaml(kTwoZones), {})),
      (std::vector<std::string>{
          "nvcre_topology_validated_nodes{zone-a,n1}", "nvcre_topology_validated_nodes{zone-a,n2}",
          "nvcre_topology_failed_nodes{zone-b,n3}", "nvcre_topology_failed_nodes{zone-b,n4}"}));
}

TEST(WorkflowTopologyGauges, ANodeOfAFailedGroupIsNotValidatedByAnother) {
  auto workflow = parse_yaml(kTwoZones);
  auto& groups = workflow.at("status").at("orchestration").at("groups").as_array();
  groups[0].as_object()["nodes"] = boost::json::array{"n1", "n3"};
  EXPECT_EQ(series(topology_gauges(workflow, {})),
            (std::vector<std::string>{"nvcre_topology_validated_nodes{zone-a,n1}",
                                      "nvcre_topology_failed_nodes{zone-b,n3}",
                                      "nvcre_topology_failed_nodes{zone-b,n4}"}));
}

TEST(WorkflowTopologyGauges, NoTopologyKeyOrNoGroupsProjectNothing) {
  auto without_key = parse_yaml(kTwoZones);
  without_key.at("spec").at("orchestration").as_object().erase("topology");
  EXPECT_TRUE(topology_gauges(without_key, {}).empty());
  EXPECT_TRUE(nodes_needing_own_domain(without_key).empty());
  EXPECT_TRUE(topology_gauges(parse_yaml(kZoned), {}).empty());
}

// An overflow group's nodes, each in the domain its own label names.
const std::string kOverflow = kZoned + R"(
status:
  orchestration:
    groups:
    - {name: group-0, nodes: [n1, n2], domains: [zone-a], phase: Succeeded}
    - {name: group-1, nodes: [n3, n4, n5], domains: [zone-b, zone-c], overflow: true, phase: Succeeded}
    - {name: group-2, nodes: [n6, n7], domains: [zone-c, zone-d], overflow: true, phase: Failed}
    - {name: group-3, nodes: [n8, n9], domains: [zone-c, zone-d], overflow: true, phase: Running}
)";

TEST(WorkflowTopologyGauges, OverflowGroupNodesNeedTheirOwnDomainOnceTheGroupEnded) {
  EXPECT_EQ(nodes_needing_own_domain(parse_yaml(kOverflow)),
            (std::vector<std::string>{"n3", "n4", "n5", "n6", "n7"}));
}

TEST(WorkflowTopologyGauges, OverflowGroupNodesCountUnderTheirOwnDomain) {
  const NodeDomains domains{
      {"n3", "zone-b"}, {"n4", "zone-c"}, {"n6", "zone-c"}, {"n7", "zone-d"}, {"n9", "zone-d"}};
  EXPECT_EQ(
      series(topology_gauges(parse_yaml(kOverflow), domains)),
      (std::vector<std::string>{
          "nvcre_topology_validated_nodes{zone-a,n1}", "nvcre_topology_validated_nodes{zone-a,n2}",
          "nvcre_topology_validated_nodes{zone-b,n3}", "nvcre_topology_validated_nodes{zone-c,n4}",
          "nvcre_topology_failed_nodes{zone-c,n6}", "nvcre_topology_failed_nodes{zone-d,n7}"}));
}

TEST(WorkflowTopologyGauges, WorkflowGaugesReadOverflowNodesLabelsFromTheCache) {
  nvcre::k8s::ObjectCache cache;
  const auto node = [](const std::string& name, const char* zone) {
    auto object = parse_yaml("{apiVersion: v1, kind: Node, metadata: {name: " + name + "}}");
    if (zone != nullptr)
      object.at("metadata").as_object()["labels"] = boost::json::object{{"example.com/zone", zone}};
    return object;
  };
  cache.upsert(node("n3", "zone-b"));
  cache.upsert(node("n4", nullptr));  // no label: left out
  cache.upsert(node("n6", "zone-d"));
  // n5 and n7 are not cached: left out
  std::vector<nvcre::k8s::GaugeSample> topology;
  for (auto& sample : workflow_gauges(parse_yaml(kOverflow), cache)) {
    if (sample.name.starts_with("nvcre_topology_")) topology.push_back(std::move(sample));
  }
  EXPECT_EQ(series(topology), (std::vector<std::string>{"nvcre_topology_validated_nodes{zone-a,n1}",
                                                        "nvcre_topology_validated_nodes{zone-a,n2}",
                                                        "nvcre_topology_validated_nodes{zone-b,n3}",
                                                        "nvcre_topology_failed_nodes{zone-d,n6}"}));
}

TEST(WorkflowTopologyGauges, TheFamiliesAreDeclared) {
  const auto& families = nvcre::k8s::object_gauge_families();
  EXPECT_TRUE(families.contains("nvcre_topology_validated_nodes"));
  EXPECT_TRUE(families.contains("nvcre_topology_failed_nodes"));
}

}  // namespace
