// The GPU-architecture fallback of DRA-only nodes, through the real manager on kube-sim: nodes
// without nvidia.com/gpu.product whose gpu.nvidia.com ResourceSlices name their GPUs are detected
// as that architecture by a Certification's build, by the Workflow's discovery and by a
// WorkloadRun's defaults; the synthesized product never reaches a pod's node affinity (no node
// carries it). Without the slices the same Certification cannot tell the architecture.
#include "jsonkit/paths.hpp"
#include "test/support/embedded_manager.hpp"
#include "test/support/certification_object.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kNodes;
using nvcre::testing::kTrainJobs;
using nvcre::testing::kWorkflows;
using nvcre::testing::kWorkloadRuns;

const k8s::ResourceRef kResourceSlices{"resource.k8s.io", "v1", "resourceslices", false};

// A torch run that names no gpusPerNode: its default comes from the detected architecture.
json::value workloadrun(const std::string& name) {
  return json::object{{"apiVersion", "nvcre.nvidia.com/v1alpha1"},
                      {"kind", "WorkloadRun"},
                      {"metadata", {{"name", name}, {"namespace", "it"}}},
                      {"spec",
                       {{"target", {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}}},
                        {"image", "nvcr.io/nvidia/pytorch:26.01-py3"},
                        {"numNodes", 4},
                        {"framework", {{"torch", {{"module", "torchtitan.train"}}}}}}}};
}

// What the NVIDIA DRA driver publishes for one node: a vfio passthrough device first (its PCI-IDs
// name must not count), then the GPUs with their NVML name.
json::value slice_of(const std::string& node, const std::string& product) {
  auto device = [](const std::string& name, const std::string& type, const std::string& product) {
    return json::object{
        {"name", name},
        {"attributes", {{"type", {{"string", type}}}, {"productName", {{"string", product}}}}}};
  };
  return json::object{{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "ResourceSlice"},
                      {"metadata", {{"name", node + "-gpu.nvidia.com"}}},
                      {"spec",
                       {{"driver", "gpu.nvidia.com"},
                        {"nodeName", node},
                        {"pool", {{"name", node}, {"generation", 1}, {"resourceSliceCount", 1}}},
                        {"devices", json::array{device("vfio-0", "vfio", "GH100 [B200 SXM]"),
                                                device("gpu-0", "gpu", product),
                                                device("gpu-1", "gpu", product)}}}}};
}

class ManagerDraFallback : public nvcre::testing::EmbeddedManagerTest {
 protected:
  // aws:h100:4 whose nodes lost their product label (no GFD), with or without the DRA driver's
  // slices naming "NVIDIA H100 80GB HBM3" (`last_product`: what the last node's slice names).
  void start_unlabelled(bool with_slices,
                        const std::string& last_product = "NVIDIA H100 80GB HBM3") {
    manager::EmbeddedClusterOptions options;
    options.profile = "aws:h100:4";
    start(std::move(options), nullptr, [&] {
      const auto nodes = items(kNodes);
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const std::string name = jsonkit::string_at(nodes[i], {"metadata", "name"});
        client_->merge_patch(
            kNodes, "", name,
            json::parse(R"({"metadata":{"labels":{"nvidia.com/gpu.product":null}}})"));
        const std::string product =
            i + 1 == nodes.size() ? last_product : std::string("NVIDIA H100 80GB HBM3");
        if (with_slices) client_->create(kResourceSlices, "", slice_of(name, product));
      }
    });
  }

  json::value only(const k8s::ResourceRef& resource) {
    const auto all = items(resource);
    EXPECT_EQ(all.size(), 1u);
    return all.empty() ? json::value() : all.front();
  }
};

TEST_F(ManagerDraFallback, ACertificationDetectsTheArchitectureFromResourceSlices) {
  start_unlabelled(true);
  client_->create(kCertifications, "it", nvcre::testing::one_category_certification("dra"));
  const auto verdict = wait_for_verdict("dra");
  EXPECT_EQ(verdict.type, "Succeeded") << verdict.reason << ": " << verdict.message;

  const json::value workflow = only(kWorkflows);
  EXPECT_EQ(jsonkit::string_at(workflow, {"status", "orchestration", "detectedGPUArchitecture"}),
            "h100");
  // The H100 default of eight GPUs per node, not the unknown architecture's four.
  EXPECT_NE(json::serialize(workflow).find(R"("numProcPerNode":8)"), std::string::npos)
      << json::serialize(workflow);
  // No node carries the synthesized product: neither the record nor any affinity names it.
  EXPECT_EQ(jsonkit::value_at(workflow, {"status", "orchestration", "gpuProducts"}), nullptr);
  for (const auto& trainjob : items(kTrainJobs))
    EXPECT_EQ(json::serialize(trainjob).find("nvidia.com/gpu.product"), std::string::npos)
        << json::serialize(trainjob);
  // The label stays off the stored nodes.
  for (const auto& node : items(kNodes))
    EXPECT_EQ(jsonkit::value_at(node, {"metadata", "labels", "nvidia.com/gpu.product"}), nullptr);
}

TEST_F(ManagerDraFallback, WithoutResourceSlicesTheArchitectureCannotBeDetermined) {
  start_unlabelled(false);
  client_->create(kCertifications, "it", nvcre::testing::one_category_certification("no-dra"));
  const auto verdict = wait_for_verdict("no-dra");
  EXPECT_EQ(verdict.type, "Failed");
  EXPECT_EQ(verdict.reason, "WorkflowValidationFailed");
  EXPECT_NE(verdict.message.find("cannot determine GPU architecture"), std::string::npos)
      << verdict.message;
}

TEST_F(ManagerDraFallback, AWorkloadRunSizesItsRuntimeFromTheResourceSliceArchitecture) {
  start_unlabelled(true);
  client_->create(kWorkloadRuns, "it", workloadrun("dra-run"));
  const json::value run = wait_for_verdict_object(kWorkloadRuns, "dra-run");
  ASSERT_FALSE(run.is_null());
  EXPECT_EQ(jsonkit::string_at(run, {"status", "detectedGPUArchitecture"}), "h100")
      << json::serialize(run);
  // The runtime as the Workflow declares it (its job-scoped copies are gone once the run ended).
  const json::value workflow = only(kWorkflows);
  const json::value* runtime = nullptr;
  if (const auto* dependencies = jsonkit::value_at(workflow, {"spec", "dependencies"});
      dependencies != nullptr && dependencies->is_array()) {
    for (const auto& dependency : dependencies->as_array())
      if (jsonkit::string_at(dependency, {"kind"}) == "TrainingRuntime") runtime = &dependency;
  }
  ASSERT_NE(runtime, nullptr) << json::serialize(workflow);
  const json::value* processes =
      jsonkit::value_at(*runtime, {"spec", "mlPolicy", "torch", "numProcPerNode"});
  ASSERT_NE(processes, nullptr) << json::serialize(*runtime);
  EXPECT_EQ(processes->to_number<int>(), 8) << json::serialize(*runtime);
}

// Unpinned has no hostname pin, so the GPU-product term is all that keeps the job on the detected
// architecture; built from slice-named products it would match no node, so with a node of another
// architecture in the target the run is refused before any Job.
TEST_F(ManagerDraFallback, AnUnpinnedRunOnAMixedSliceNamedFleetIsRefused) {
  start_unlabelled(true, "NVIDIA A100-SXM4-80GB");
  json::value run = workloadrun("dra-unpinned");
  run.as_object()["spec"].as_object()["numNodes"] = 2;
  run.as_object()["spec"].as_object()["orchestration"] = json::object{{"placement", "Unpinned"}};
  client_->create(kWorkloadRuns, "it", run);
  ASSERT_FALSE(wait_for_verdict_object(kWorkloadRuns, "dra-unpinned").is_null());

  const json::value workflow = only(kWorkflows);
  std::string failed_reason, failed_message;
  if (const auto* conditions = jsonkit::value_at(workflow, {"status", "conditions"});
      conditions != nullptr && conditions->is_array()) {
    for (const auto& condition : conditions->as_array()) {
      if (jsonkit::string_at(condition, {"type"}) == "Failed" &&
          jsonkit::string_at(condition, {"status"}) == "True") {
        failed_reason = jsonkit::string_at(condition, {"reason"});
        failed_message = jsonkit::string_at(condition, {"message"});
      }
    }
  }
  EXPECT_EQ(failed_reason, "PartitionError") << json::serialize(workflow);
  EXPECT_NE(failed_message.find("Unpinned cannot constrain this job to a GPU architecture. 4 of "
                                "the target nodes carry no nvidia.com/gpu.product label"),
            std::string::npos)
      << failed_message;
  EXPECT_NE(failed_message.find("Discovery also excluded 1 node(s)"), std::string::npos)
      << failed_message;
  EXPECT_TRUE(items(kTrainJobs).empty());
}

}  // namespace
}  // namespace nvcre::actors
