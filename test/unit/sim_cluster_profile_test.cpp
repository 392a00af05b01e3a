// kube-sim's simulated GPU cluster: profile parsing, and Nodes that platform/detect reads back as
// the profile's platform and architecture on every platform.
#include "sim/api_server.hpp"
#include "sim/cluster_profile.hpp"

#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace nvcre::sim {
namespace {

namespace json = boost::json;

std::string label(const json::value& node, const char* key) {
  const auto* value = node.at("metadata").at("labels").as_object().if_contains(key);
  return value ? std::string(value->as_string()) : std::string("<absent>");
}

std::string allocatable(const json::value& node, const char* resource) {
  const auto* value = node.at("status").at("allocatable").as_object().if_contains(resource);
  return value ? std::string(value->as_string()) : std::string("<absent>");
}

TEST(SimClusterProfile, ParsesPlatformArchitectureAndCount) {
  auto profile = parse_cluster_profile("aws:h100:16");
  EXPECT_EQ(profile.platform, "aws");
  EXPECT_EQ(profile.architecture, "h100");
  EXPECT_EQ(profile.node_count, 16);
  EXPECT_EQ(parse_cluster_profile("oci:NVIDIA-GB200:4").architecture,
            "gb200");  // a product label works too
}

TEST(SimClusterProfile, RejectsMalformedSpecs) {
  for (const char* spec : {"aws:h100", "aws:h100:16:2", "mars:h100:2", "aws:z999:2", "aws:h100:0",
                           "aws:h100:x", "aws::2", "aws:h100:10001"})
    EXPECT_THROW(parse_cluster_profile(spec), std::invalid_argument) << spec;
  EXPECT_EQ(parse_cluster_profile("aws:h100:10000").node_count, 10000);  // the fleet bench's size
  try {
    parse_cluster_profile("mars:h100:2");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("aws, gcp, azure"), std::string::npos) << e.what();
  }
}

TEST(SimClusterProfile, FaultyNodeFlagHasADefaultReason) {
  auto plain = parse_faulty_node("gpu-node-03");
  EXPECT_EQ(plain.name, "gpu-node-03");
  EXPECT_EQ(plain.reason, kDefaultNodeFault);
  auto xid = parse_faulty_node("gpu-node-01=XID 79: GPU has fallen off the bus");
  EXPECT_EQ(xid.name, "gpu-node-01");
  EXPECT_EQ(xid.reason, "XID 79: GPU has fallen off the bus");
  EXPECT_THROW(parse_faulty_node("=oops"), std::invalid_argument);
}

TEST(SimClusterProfile, NodeNamesAreZeroPaddedSoTheySortByIndex) {
  EXPECT_EQ(profile_node_name(0, 16), "gpu-node-00");
  EXPECT_EQ(profile_node_name(15, 16), "gpu-node-15");
  EXPECT_EQ(profile_node_name(7, 150), "gpu-node-007");
}

// Every platform, a Hopper and a Grace-Blackwell profile: detection answers the profile.
TEST(SimClusterProfile, EveryPlatformsNodesAreDetectedAsThatPlatformAndArchitecture) {
  for (auto platform_name : platform::kPlatformNames) {
    for (const char* arch : {"h100", "gb200"}) {
      ClusterProfile profile{std::string(platform_name), arch, 3, {}, {}, {}};
      const auto nodes = build_cluster_nodes(profile);
      ASSERT_EQ(nodes.size(), 3u);
      const auto detected = platform::detect_platform_consistent(nodes);
      EXPECT_TRUE(detected.ok()) << detected.error;
      EXPECT_EQ(detected.platform, platform_name) << arch;
      EXPECT_EQ(platform::detect_platform(nodes), platform_name);
      const auto selection = platform::select_primary_architecture(nodes);
      EXPECT_EQ(selection.architecture, arch) << platform_name;
      EXPECT_EQ(selection.kept.size(), 3u);
      std::set<std::string> provider_ids;
      for (const auto& node : nodes)
        provider_ids.insert(std::string(platform::NodeView(node).provider_id()));
      if (platform_name != platform::kForge) {
        EXPECT_EQ(provider_ids.size(), 3u) << platform_name << ": one ID per node";
      }
    }
  }
}

TEST(SimClusterProfile, NodesCarryGpuLabelsAllocatableAndReadiness) {
  const auto nodes = build_cluster_nodes({"aws", "h100", 16, {}, {}, {}});
  ASSERT_EQ(nodes.size(), 16u);
  const auto& node = nodes.front();
  EXPECT_EQ(node.at("metadata").at("name"), "gpu-node-00");
  EXPECT_EQ(nodes.back().at("metadata").at("name"), "gpu-node-15");
  EXPECT_EQ(label(node, "kubernetes.io/hostname"), "gpu-node-00");
  EXPECT_EQ(label(node, "nvidia.com/gpu.present"), "true");
  EXPECT_EQ(label(node, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(label(node, "nvidia.com/gpu.count"), "8");
  EXPECT_EQ(label(node, "node.kubernetes.io/instance-type"), "p5.48xlarge");
  EXPECT_EQ(label(node, "nvidia.com/gpu.clique"), "<absent>");
  EXPECT_EQ(allocatable(node, "nvidia.com/gpu"), "8");
  EXPECT_EQ(allocatable(node, "vpc.amazonaws.com/efa"), "32");
  EXPECT_TRUE(node.at("spec").at("providerID").as_string().starts_with("aws:///us-east-1a/i-"));
  bool ready = false;
  for (const auto& condition : node.at("status").at("conditions").as_array())
    ready = ready || (condition.at("type") == "Ready" && condition.at("status") == "True");
  EXPECT_TRUE(ready);
}

TEST(SimClusterProfile, GraceBlackwellNodesHaveCliquesOfEighteenAndArm64) {
  const auto nodes = build_cluster_nodes({"onprem", "gb200", 20, {}, {}, {}});
  EXPECT_EQ(label(nodes[0], "nvidia.com/gpu.count"), "4");
  EXPECT_EQ(label(nodes[0], "kubernetes.io/arch"), "arm64");
  EXPECT_EQ(label(nodes[0], "nvidia.com/gpu.clique"), label(nodes[17], "nvidia.com/gpu.clique"));
  EXPECT_NE(label(nodes[17], "nvidia.com/gpu.clique"), label(nodes[18], "nvidia.com/gpu.clique"));
  EXPECT_EQ(platform::count_topology_domains("nvidia.com/gpu.clique", nodes), 2);
  // On-prem GB200 NIC auto-detection finds the one rdma/* resource the nodes advertise.
  const auto defaults = platform::gpu_defaults("gb200", "onprem");
  const auto nic =
      platform::detect_nic_resource_name("", "onprem", "gb200", defaults.mlnxPerNode, nodes);
  EXPECT_EQ(nic.resourceName, "rdma/ib") << nic.message;
}

TEST(SimClusterProfile, NscaleNodesNameTheirAcceleratorDomain) {
  // NKS has no GFD clique label; renders group GB200/GB300 jobs by this one (a rack per NVL72).
  constexpr const char* kDomain = "topology.nks.nscale.com/accelerator-domain";
  const auto racks = build_cluster_nodes({"nscale", "gb300", 20, {}, {}, {}});
  EXPECT_EQ(label(racks[0], kDomain), label(racks[17], kDomain));
  EXPECT_NE(label(racks[17], kDomain), label(racks[18], kDomain));
  EXPECT_EQ(platform::count_topology_domains(kDomain, racks), 2);
  // On HGX systems the NVLink domain is the node.
  EXPECT_EQ(platform::count_topology_domains(
                kDomain, build_cluster_nodes({"nscale", "b200", 3, {}, {}, {}})),
            3);
  EXPECT_EQ(label(build_cluster_nodes({"oci", "gb300", 1, {}, {}, {}})[0], kDomain), "<absent>");
}

TEST(SimClusterProfile, PlatformNicResources) {
  EXPECT_EQ(
      allocatable(build_cluster_nodes({"azure", "h100", 1, {}, {}, {}})[0], "nvidia.com/mlnxnics"),
      "8");
  EXPECT_EQ(
      allocatable(build_cluster_nodes({"oci", "gb200", 1, {}, {}, {}})[0], "nvidia.com/mlnxnics"),
      "<absent>");
  EXPECT_EQ(allocatable(build_cluster_nodes({"gcp", "gb200", 1, {}, {}, {}})[0],
                        "networking.gke.io.networks/rdma-3"),
            "1");
  EXPECT_EQ(allocatable(build_cluster_nodes({"nscale", "h100", 1, {}, {}, {}})[0],
                        "nscale.com/rdmashare"),
            "1000");
}

TEST(SimClusterProfile, FaultyNodesAreAnnotatedAndMustExist) {
  ClusterProfile profile{"aws", "h100", 4, {{"gpu-node-02", "XID 79"}}, {}, {}};
  const auto nodes = build_cluster_nodes(profile);
  EXPECT_EQ(nodes[2].at("metadata").at("annotations").at(kNodeFaultAnnotation), "XID 79");
  EXPECT_FALSE(
      nodes[1].at("metadata").at("annotations").as_object().contains(kNodeFaultAnnotation));
  profile.faulty_nodes = {{"gpu-node-09", "x"}};
  EXPECT_THROW(build_cluster_nodes(profile), std::invalid_argument);
}

TEST(SimClusterProfile, SlowAndStalledNodesAreAnnotatedAndMustExist) {
  ClusterProfile profile{"aws",          "h100", 4, {}, {parse_slow_node("gpu-node-01=50")},
                         {"gpu-node-03"}};
  const auto nodes = build_cluster_nodes(profile);
  EXPECT_EQ(nodes[1].at("metadata").at("annotations").at(kNodeBusBandwidthAnnotation), "50");
  EXPECT_EQ(nodes[3].at("metadata").at("annotations").at(kNodeStallAnnotation), "true");
  EXPECT_FALSE(
      nodes[0].at("metadata").at("annotations").as_object().contains(kNodeStallAnnotation));
  profile.stall_nodes = {"gpu-node-07"};
  try {
    build_cluster_nodes(profile);
    FAIL() << "a stalled node outside the cluster";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("--stall-node gpu-node-07 is not a node"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(parse_slow_node("gpu-node-02=12.5").bus_bandwidth_gbps, 12.5);
  for (const char* bad : {"gpu-node-02", "=5", "gpu-node-02=", "gpu-node-02=0", "n=fast"})
    EXPECT_THROW(parse_slow_node(bad), std::invalid_argument) << bad;
}

TEST(SimClusterProfile, NodeConditionNodesAreAnnotatedAndMustExist) {
  ClusterProfile profile = parse_cluster_profile("aws:h100:4");
  profile.node_conditions = {parse_node_condition("gpu-node-02=GPUHealthy"),
                             parse_node_condition("gpu-node-02=NetworkReady")};
  const auto nodes = build_cluster_nodes(profile);
  EXPECT_EQ(nodes[2].at("metadata").at("annotations").at(kNodeConditionAnnotation),
            "GPUHealthy,NetworkReady");
  EXPECT_EQ(conditions_on_run(nodes[2]), (std::vector<std::string>{"GPUHealthy", "NetworkReady"}));
  EXPECT_TRUE(conditions_on_run(nodes[1]).empty());
  profile.node_conditions = {{"gpu-node-04", "GPUHealthy"}};
  try {
    build_cluster_nodes(profile);
    FAIL() << "a node outside the cluster";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("--node-condition gpu-node-04 is not a node"),
              std::string::npos)
        << error.what();
  }
  for (const char* bad : {"gpu-node-02", "=GPUHealthy", "gpu-node-02=", "n=GPU Healthy"})
    EXPECT_THROW(parse_node_condition(bad), std::invalid_argument) << bad;
}

TEST(SimClusterProfile, ApiServerServesTheProfileNodesWithStatus) {
  ApiServerOptions options;
  options.cluster = parse_cluster_profile("gcp:h100:3");
  ApiServer api(options);
  auto result = api.handle(HttpRequest{"GET", "/api/v1/nodes", {}, "", "application/json", ""});
  const auto& response = std::get<HttpResponse>(result);
  ASSERT_EQ(response.status, 200) << response.body;
  const auto list = json::parse(response.body);
  ASSERT_EQ(list.at("items").as_array().size(), 3u);
  const auto& node = list.at("items").at(2);
  EXPECT_EQ(node.at("metadata").at("name"), "gpu-node-02");
  EXPECT_EQ(node.at("status").at("allocatable").at("nvidia.com/gpu"), "8");
  EXPECT_EQ(platform::detect_node_platform(node), "gcp");
}

TEST(SimClusterProfile, ApiServerServesDynamicResourceAllocationKinds) {
  // The renders' DRA claim templates (nscale GPUs and NICs, GB300 RoCE) and their pods' claims.
  ApiServerOptions options;
  options.cluster = parse_cluster_profile("nscale:b200:1");
  ApiServer api(options);
  auto get = [&](const std::string& path) {
    return std::get<HttpResponse>(
        api.handle(HttpRequest{"GET", path, {}, "", "application/json", ""}));
  };
  const auto discovery = get("/apis/resource.k8s.io/v1");
  ASSERT_EQ(discovery.status, 200) << discovery.body;
  std::set<std::string> served;
  const json::value group = json::parse(discovery.body);
  for (const auto& resource : group.at("resources").as_array())
    served.emplace(resource.at("name").as_string());
  for (const char* name : {"deviceclasses", "resourceclaims", "resourceclaims/status",
                           "resourceclaimtemplates", "resourceslices"})
    EXPECT_TRUE(served.contains(name)) << name << " in " << discovery.body;
  const std::string body = R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate",
    "metadata":{"name":"gpu"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu",
    "exactly":{"deviceClassName":"gpu.nvidia.com","count":8}}]}}}})";
  auto created = std::get<HttpResponse>(
      api.handle(HttpRequest{"POST",
                             "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates",
                             {},
                             "application/json",
                             "application/json",
                             body}));
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(get("/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates/gpu").status,
            200);
}

}  // namespace
}  // namespace nvcre::sim
