// workflow/node_discovery.hpp: the GPU request read from a resolved spec, the capacity filter and
// the wording of exclusion records.
#include "api/codec.hpp"
#include "workflow/node_discovery.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
namespace wf = nvcre::workflow;

json::value gpu_node(const char* name, json::value allocatable) {
  json::object node{
      {"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", json::object{{"name", name}}}};
  if (!allocatable.is_null())
    node["status"] = json::object{{"allocatable", json::object{{"nvidia.com/gpu", allocatable}}}};
  return node;
}

TEST(WorkflowNodeDiscovery, GpuRequestIsTheLargestRequestOrLimitAnywhere) {
  auto spec = api::decode<api::WorkflowSpec>(json::parse(R"({
    "jobTemplate": {"spec": {"workload": {"trainJob": {"trainer": {"resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}}}}}},
    "orchestration": {},
    "dependencies": [{"apiVersion": "v1", "kind": "X", "metadata": {"name": "x", "labels": {"nvidia.com/gpu": "64"}},
                      "spec": {"c": [{"resources": {"requests": {"nvidia.com/gpu": "8"}}}]}}]})"));
  EXPECT_EQ(wf::workload_gpus_per_node(spec), 8) << "labels never count, nested requests do";
  spec.dependencies.clear();
  EXPECT_EQ(wf::workload_gpus_per_node(spec), 4);
  spec.jobTemplate.spec.workload.trainJob->at("trainer").as_object()["resourcesPerNode"] =
      json::object{{"limits", json::object{{"nvidia.com/gpu", "500m"}}}};
  EXPECT_EQ(wf::workload_gpus_per_node(spec), 0) << "a fractional quantity is no whole GPU count";
}

TEST(WorkflowNodeDiscovery, CapacityFilterDropsOnlyKnownSmallerCounts) {
  std::vector<json::value> nodes{gpu_node("n1", "8"), gpu_node("n2", "4"), gpu_node("n3", "0"),
                                 gpu_node("n4", nullptr), gpu_node("n5", 2)};
  auto filtered = wf::filter_by_gpu_capacity(nodes, 8);
  ASSERT_EQ(filtered.excluded.size(), 2u);
  EXPECT_EQ(wf::gpu_shortfall_detail(filtered.excluded), "n2 has 4, n5 has 2");
  EXPECT_EQ(filtered.kept.size(), 3u)
      << "missing or zero allocatable means the device plugin is restarting";
  EXPECT_EQ(wf::filter_by_gpu_capacity(nodes, 0).kept.size(), 5u);
}

TEST(WorkflowNodeDiscovery, ExclusionSummaryKeepsEveryCause) {
  auto record = wf::exclusion_summary({"c1"}, {"a1", "a2"}, "h100", {{"g1", 2}}, 8);
  EXPECT_EQ(record.nodes, (std::vector<std::string>{"c1", "a1", "a2", "g1"}));
  EXPECT_EQ(record.reason,
            "1 node(s) matched the target but were unschedulable (cordoned): c1. target set has "
            "more than one GPU "
            "architecture; certified h100 only. 1 node(s) matched the target but have insufficient "
            "GPU capacity, the "
            "workload requests 8 nvidia.com/gpu per node: g1 has 2");
  EXPECT_TRUE(wf::exclusion_summary({}, {}, "h100", {}, 0).reason.empty());
  EXPECT_EQ(wf::not_enough_nodes_message(4, 2, "h100", {}, {}, 8),
            "Not enough schedulable nodes: need 4, found 2");
  EXPECT_EQ(wf::not_enough_nodes_message(4, 2, "h100", {}, {{"g1", 2}}, 8),
            "Not enough schedulable nodes: need 4, found 2. 1 node(s) matched the target but were "
            "excluded for having "
            "fewer than the 8 allocatable nvidia.com/gpu the workload requests per node: g1 has 2. "
            "Set nodesPerJob to 2, "
            "or lower gpusPerNode");
  // Unpinned: the size was asked for, so the remedy is nodes, with or without causes.
  EXPECT_EQ(wf::not_enough_nodes_message(4, 2, "h100", {}, {}, 8, true),
            "Not enough schedulable nodes: need 4, found 2. Make 4 qualifying nodes available "
            "rather than lowering nodesPerJob");
  EXPECT_EQ(wf::not_enough_nodes_message(4, 2, "h100", {"a1"}, {}, 8, true),
            "Not enough schedulable nodes: need 4, found 2. 1 node(s) matched the target but were "
            "excluded for not being GPU architecture h100: a1. Make 4 qualifying nodes available "
            "rather than lowering nodesPerJob, or narrow the target to one architecture");
}

}  // namespace
