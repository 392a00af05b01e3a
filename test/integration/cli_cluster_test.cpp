// nvcrectl's cluster-facing read commands as users run them: the real binary and a kubeconfig for
// an in-process kube-sim with a simulated GPU cluster (no manager: nothing here needs one).
//   - `cluster info` on aws:h100:8 with a cordoned node and two labelled racks, and on gcp:gb200
//     (NVLink cliques, GCP topology blocks): table on stdout, -o json, nothing on stderr;
//   - `certification render --dry-run` / `workloadrun render --dry-run`: the manifests on stdout,
//     one validation row per object on stderr, and nothing stored (kube-sim honours dryRun=All);
//     INVALID rows when the namespace does not exist, still exit 0.
#include "jsonkit/yaml.hpp"
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/cli_workspace.hpp"
#include "test/support/resources.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/wait.h>

namespace nvcre {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

using nvcre::testing::CliRun;

class CliCluster : public ::testing::Test {
 protected:
  void start(const std::string& profile) {
    manager::EmbeddedClusterOptions options;
    options.profile = profile;
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.namespaces = {"it"};
    cluster_ = std::make_unique<manager::EmbeddedCluster>(options);
    cluster_->start();
    cli_.open("nvcre-cli-cluster", cluster_->sim().url());
  }
  void TearDown() override {
    cluster_.reset();
    cli_.close();
  }

  CliRun nvcrectl(const std::string& args) { return cli_.nvcrectl(args); }

  void patch_node(const std::string& name, const std::string& patch) {
    cluster_->client().merge_patch(nvcre::testing::kNodes, "", name, json::parse(patch));
  }

  std::string write_file(const std::string& name, const std::string& content) {
    return cli_.write_file(name, content);
  }

  std::size_t stored(const k8s::ResourceRef& resource) {
    return cluster_->client().list(resource, "it").at("items").as_array().size();
  }

  std::unique_ptr<manager::EmbeddedCluster> cluster_;
  nvcre::testing::CliWorkspace cli_;
};

TEST_F(CliCluster, InfoShowsPlatformPoolsCordonedNodeAndRacks) {
  start("aws:h100:8");
  patch_node("gpu-node-03", R"({"spec":{"unschedulable":true}})");
  for (int i = 0; i < 8; ++i) {
    patch_node("gpu-node-0" + std::to_string(i),
               std::string(R"({"metadata":{"labels":{"topology.k8s.aws/network-node-layer-1":")") +
                   (i < 4 ? "nn-a" : "nn-b") + R"("}}})");
  }

  const CliRun table = nvcrectl("cluster info");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.err, "");  // data on stdout, nothing else said
  EXPECT_NE(table.out.find("Platform:     aws\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("GPU:          NVIDIA-H100-80GB-HBM3 (h100, 8 GPUs/node)\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("Nodes:        7 ready (7 certifiable of 8 GPU nodes)\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("Excluded:     1 (gpu-node-03)\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("TOPOLOGY (topology.k8s.aws/network-node-layer-1):\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  nn-a  4 nodes\n  nn-b  4 nodes\n"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\033'), std::string::npos) << "no colour into a file";

  const CliRun run = nvcrectl("cluster info -o json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::value info = json::parse(run.out);
  EXPECT_EQ(info.at("platform"), "aws");
  EXPECT_EQ(info.at("gpuArchitecture"), "h100");
  EXPECT_EQ(info.at("totalNodes"), 7);
  EXPECT_EQ(info.at("totalGPUs"), 56);
  EXPECT_EQ(info.at("nodes").as_array().size(), 8u);
  EXPECT_EQ(info.at("cordonedNodes"), json::array{"gpu-node-03"});
  EXPECT_EQ(info.at("excludedNodes"), json::array{"gpu-node-03"});
  const auto& pool = info.at("nodePools").at(0);
  EXPECT_EQ(info.at("nodePools").as_array().size(), 1u);
  EXPECT_EQ(pool.at("nodeCount"), 8);
  EXPECT_EQ(pool.at("cordoned"), 1);
  EXPECT_EQ(pool.at("nicResources").at(0).at("name"), "vpc.amazonaws.com/efa");
  EXPECT_EQ(info.at("topology").at("racks").at(1).at("nodeCount"), 4);
  EXPECT_EQ(json::parse(nvcrectl("cluster info -o json").out), info) << "stable output";
}

TEST_F(CliCluster, InfoListsNvlinkCliquesAndGcpBlocks) {
  start("gcp:gb200:8");
  const CliRun run = nvcrectl("cluster info -o json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json::value info = json::parse(run.out);
  EXPECT_EQ(info.at("platform"), "gcp");
  EXPECT_EQ(info.at("gpuArchitecture"), "gb200");
  EXPECT_EQ(info.at("topology").at("key"), "cloud.google.com/gce-topology-block");
  EXPECT_EQ(info.at("nvlinkCliques").at("key"), "nvidia.com/gpu.clique");
  std::size_t in_cliques = 0;
  for (const auto& clique : info.at("nvlinkCliques").at("racks").as_array())
    in_cliques += clique.at("nodes").as_array().size();
  EXPECT_EQ(in_cliques, 8u);
  const CliRun table = nvcrectl("cluster info");
  EXPECT_NE(table.out.find("NVLINK CLIQUES (nvidia.com/gpu.clique):\n"), std::string::npos)
      << table.out;
}

TEST_F(CliCluster, InfoHasNoNamespaceFlag) {
  start("aws:h100:2");
  const CliRun run = nvcrectl("cluster info -n it");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.rfind("Error: ", 0), 0u) << run.err;
  EXPECT_EQ(run.out, "");
}

const char* kCertification = R"(apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: dry, namespace: it}
spec:
  target:
    nodeSelector: {nvidia.com/gpu.present: "true"}
  categories:
    - {domain: communication, variant: nccl-all-reduce, options: {nodesPerJob: 4}}
)";

TEST_F(CliCluster, CertificationRenderDryRunValidatesEveryObjectAndStoresNothing) {
  start("aws:h100:8");
  const std::string file = write_file("cert.yaml", kCertification);
  const CliRun run = nvcrectl("certification render " + file + " --dry-run -n it");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The product was discovered and the Workflow sized against the real nodes.
  EXPECT_NE(run.err.find("Discovered 8 nodes: NVIDIA-H100-80GB-HBM3\n"), std::string::npos)
      << run.err;
  const auto documents = jsonkit::parse_yaml_documents(run.out);
  ASSERT_EQ(documents.size(), 1u) << run.out;
  const auto& workflow = documents[0];
  const std::string name(workflow.at("metadata").at("name").as_string());
  const auto& annotations = workflow.at("metadata").at("annotations");
  EXPECT_EQ(annotations.at("nvcrectl.nvidia.com/detected-platform"), "aws");
  EXPECT_EQ(annotations.at("nvcrectl.nvidia.com/detected-gpu-architecture"), "h100");
  EXPECT_FALSE(workflow.at("spec").as_object().contains("overrides")) << run.out;

  EXPECT_NE(run.err.find("Dry-run validation: " + name + "\n"), std::string::npos) << run.err;
  for (const std::string& row : {"Workflow/" + name, std::string("Job/dry-run-job"),
                                 std::string("TrainJob/dry-run-workload")}) {
    const auto at = run.err.find("\n" + row + " ");
    ASSERT_NE(at, std::string::npos) << row << "\n" << run.err;
    const std::string line = run.err.substr(at + 1, run.err.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(" OK"), std::string::npos) << line;
  }
  EXPECT_NE(run.err.find("\nTrainingRuntime/"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("INVALID"), std::string::npos) << run.err;

  // dryRun=All: admitted, validated, never stored.
  EXPECT_EQ(stored(nvcre::testing::kWorkflows), 0u);
  EXPECT_EQ(stored(nvcre::testing::kJobs), 0u);
  EXPECT_EQ(stored(nvcre::testing::kTrainJobs), 0u);
  EXPECT_EQ(stored(nvcre::testing::kTrainingRuntimes), 0u);
}

TEST_F(CliCluster, DryRunIntoAMissingNamespaceReportsInvalidRowsButExitsZero) {
  start("aws:h100:4");
  const std::string file = write_file("cert.yaml", kCertification);
  const CliRun run = nvcrectl("certification render " + file + " --dry-run -n nowhere");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("INVALID"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("nowhere"), std::string::npos) << run.err;
  EXPECT_EQ(jsonkit::parse_yaml_documents(run.out).size(), 1u) << run.out;
}

TEST_F(CliCluster, DryRunRejectsOfflineFlagsAndEmptyTargets) {
  start("aws:h100:2");
  const std::string file = write_file("cert.yaml", kCertification);
  const CliRun flags = nvcrectl("certification render " + file + " --dry-run --platform aws");
  EXPECT_EQ(flags.exit_code, 1);
  EXPECT_NE(flags.err.find("Error: --dry-run discovers nodes from the cluster; cannot combine "
                           "with --platform or --gpu-arch"),
            std::string::npos)
      << flags.err;
  std::string b200 = kCertification;
  b200.replace(b200.find("{nvidia.com/gpu.present: \"true\"}"),
               std::string_view("{nvidia.com/gpu.present: \"true\"}").size(),
               "{nvidia.com/gpu.product: NVIDIA-B200}");
  const CliRun none =
      nvcrectl("certification render " + write_file("b200.yaml", b200) + " --dry-run -n it");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("Error: no GPU nodes match target"), std::string::npos) << none.err;
}

TEST_F(CliCluster, WorkloadRunRenderDryRunValidatesAndStoresNothing) {
  start("aws:h100:4");
  const std::string file = write_file("run.yaml", R"(apiVersion: nvcre.nvidia.com/v1alpha1
kind: WorkloadRun
metadata: {name: smoke, namespace: it}
spec:
  target:
    nodeSelector: {nvidia.com/gpu.present: "true"}
  image: nvcr.io/nvidia/pytorch:26.01-py3
  numNodes: 2
  framework:
    torch: {module: train}
)");
  const CliRun run = nvcrectl("workloadrun render " + file + " --dry-run --output json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("Discovered 4 nodes: NVIDIA-H100-80GB-HBM3 (h100 on aws)\n"),
            std::string::npos)
      << run.err;
  const json::value workflow = json::parse(run.out);
  EXPECT_EQ(workflow.at("metadata").at("name"), "smoke");
  EXPECT_NE(run.err.find("Dry-run validation: smoke\n"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\nTrainJob/dry-run-workload"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("INVALID"), std::string::npos) << run.err;
  EXPECT_EQ(stored(nvcre::testing::kWorkflows), 0u);
  EXPECT_EQ(stored(nvcre::testing::kTrainJobs), 0u);
}

// `workloadrun run --topology-domain` without --topology-key: the key is the platform's own
// (GCP's topology block here), the run takes every node of the domain; a platform without one
// asks for --topology-key. No manager: the WorkloadRun is only created.
const std::string kTopologyRun =
    R"({"apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "WorkloadRun",
        "metadata": {"name": "rack", "namespace": "it"},
        "spec": {"target": {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
                 "image": "nvcr.io/nvidia/pytorch:26.01-py3", "numNodes": 1,
                 "framework": {"torch": {"module": "train"}}}})";

TEST_F(CliCluster, TopologyDomainUsesThePlatformsTopologyKey) {
  start("gcp:h100:8");
  const CliRun run = nvcrectl("workloadrun run " + write_file("run.json", kTopologyRun) +
                              " --topology-domain "
                              "block-00");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("Topology key (platform gcp): cloud.google.com/gce-topology-block\n"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("Discovered 8 nodes: NVIDIA-H100-80GB-HBM3\n"), std::string::npos)
      << run.err;
  const json::value created = cluster_->client().get(nvcre::testing::kWorkloadRuns, "it", "rack");
  EXPECT_EQ(created.at_pointer("/spec/numNodes"), 8);
  EXPECT_EQ(created.at_pointer("/spec/target/matchExpressions"),
            json::parse(R"([{"key": "cloud.google.com/gce-topology-block", "operator": "In",
                             "values": ["block-00"]}])"));
}

TEST_F(CliCluster, TopologyDomainWithoutAPlatformKeyAsksForOne) {
  start("oci:h100:4");
  const CliRun run = nvcrectl("workloadrun run " + write_file("run.json", kTopologyRun) +
                              " --topology-domain "
                              "rack-1");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err, "Error: --topology-domain requires --topology-key on platform \"oci\"\n");
  EXPECT_EQ(stored(nvcre::testing::kWorkloadRuns), 0u);
}

}  // namespace
}  // namespace nvcre
