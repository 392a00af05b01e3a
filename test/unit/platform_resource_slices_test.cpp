// The DRA fallback for GPU architecture: which product a node's gpu.nvidia.com ResourceSlices
// name, spelled as GFD spells the label, and which in-memory node copies get it.
#include "platform/detect.hpp"
#include "platform/node_facts.hpp"
#include "platform/resource_slices.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::platform {
namespace {
namespace json = boost::json;

json::value node(const std::string& name, const std::string& product = "") {
  json::object labels{{"nvidia.com/gpu.present", "true"}};
  if (!product.empty()) labels["nvidia.com/gpu.product"] = product;
  return json::object{{"metadata", json::object{{"name", name}, {"labels", labels}}}};
}

json::object device(const std::string& name, const std::string& product,
                    const std::string& type = "gpu") {
  json::object attributes{{"type", json::object{{"string", type}}}};
  if (!product.empty()) attributes["productName"] = json::object{{"string", product}};
  return json::object{{"name", name}, {"attributes", attributes}};
}

json::object slice(const std::string& driver, const std::string& node_name, json::array devices) {
  json::object spec{{"driver", driver}, {"devices", std::move(devices)}};
  if (!node_name.empty()) spec["nodeName"] = node_name;
  return json::object{
      {"apiVersion", "resource.k8s.io/v1"}, {"kind", "ResourceSlice"}, {"spec", std::move(spec)}};
}

json::value list(json::array items) {
  return json::object{{"kind", "ResourceSliceList"}, {"items", std::move(items)}};
}

TEST(ResourceSlices, ProductNamesAreSpelledAsGfdLabelsThem) {
  EXPECT_EQ(gfd_product_label_value("NVIDIA GB300"), "NVIDIA-GB300");
  EXPECT_EQ(gfd_product_label_value("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(gfd_product_label_value("  NVIDIA  RTX PRO 6000 (Blackwell)  "),
            "NVIDIA-RTX-PRO-6000-Blackwell");
  EXPECT_EQ(gfd_product_label_value("NVIDIA-A100_SXM4.80GB"), "NVIDIA-A100_SXM4.80GB");
  EXPECT_EQ(gfd_product_label_value(""), "");
  // The spelled label parses to the same architecture as the device name.
  EXPECT_EQ(parse_gpu_product(gfd_product_label_value("NVIDIA GB300")), "gb300");
}

TEST(ResourceSlices, OnlyTheNvidiaGpuDriversNodeLocalSlicesCount) {
  const auto products = gpu_products_by_node(list({
      slice("gpu.nvidia.com", "node-a", {device("gpu-0", "NVIDIA GB300")}),
      slice("rdma.nscale.com", "node-b", {device("nic-0", "ConnectX-7")}),
      slice("gpu.nvidia.com", "", {device("gpu-0", "NVIDIA H100")}),  // no nodeName: a pool
      slice("gpu.nvidia.com", "node-c", {device("gpu-0", "")}),       // no productName
  }));
  EXPECT_EQ(products, (std::map<std::string, std::string>{{"node-a", "NVIDIA-GB300"}}));
}

TEST(ResourceSlices, TheFirstNamedDeviceThatIsNotVfioNamesTheNode) {
  const auto products = gpu_products_by_node(
      list({slice("gpu.nvidia.com", "node-a",
                  {device("vfio-0", "GH100 [H100 SXM5 80GB]", "vfio"),
                   device("mig-0", "NVIDIA H100", "mig"), device("gpu-1", "NVIDIA B200")})}));
  EXPECT_EQ(products.at("node-a"), "NVIDIA-H100");
}

TEST(ResourceSlices, AnythingButAListNamesNothing) {
  EXPECT_TRUE(gpu_products_by_node(json::value()).empty());
  EXPECT_TRUE(gpu_products_by_node(json::object{{"kind", "Status"}, {"code", 403}}).empty());
}

TEST(ResourceSlices, OnlyUnlabelledNodesGetTheProductAndAreReported) {
  std::vector<json::value> nodes{node("node-a"), node("node-b", "NVIDIA-H100-80GB-HBM3"),
                                 node("node-c"), node("node-d", "")};
  EXPECT_TRUE(any_node_lacks_gpu_product(nodes));
  const auto synthesized = augment_gpu_product_labels(
      nodes, {{"node-a", "NVIDIA-GB300"}, {"node-b", "NVIDIA-GB300"}, {"node-d", "NVIDIA-B200"}});
  EXPECT_EQ(synthesized, (std::vector<std::string>{"node-a", "node-d"}));
  EXPECT_EQ(*NodeView(nodes[0]).label(kGpuProductLabel), "NVIDIA-GB300");
  EXPECT_EQ(*NodeView(nodes[1]).label(kGpuProductLabel), "NVIDIA-H100-80GB-HBM3");
  EXPECT_FALSE(NodeView(nodes[2]).has_label(kGpuProductLabel));  // no slice names it
  EXPECT_EQ(*NodeView(nodes[3]).label(kGpuProductLabel), "NVIDIA-B200");
  EXPECT_TRUE(any_node_lacks_gpu_product(nodes));
  EXPECT_FALSE(any_node_lacks_gpu_product(std::span(nodes).first(2)));
}

TEST(ResourceSlices, DetectionVotesWithTheSynthesizedProduct) {
  std::vector<json::value> nodes{node("node-a"), node("node-b"), node("node-c", "NVIDIA-H100")};
  EXPECT_EQ(majority_gpu_architecture(nodes), "h100");
  augment_gpu_product_labels(nodes, {{"node-a", "NVIDIA-GB300"}, {"node-b", "NVIDIA-GB300"}});
  const auto facts = detect_nodes(nodes);
  EXPECT_EQ(facts.selection.architecture, "gb300");
  EXPECT_EQ(facts.selection.excluded, std::vector<std::string>{"node-c"});
}

}  // namespace
}  // namespace nvcre::platform
