#pragma once
// The GPU-architecture fallback for DRA-only nodes: a node the GPU feature discovery never labelled
// (no nvidia.com/gpu.product) still publishes its GPUs in resource.k8s.io/v1 ResourceSlices of the
// NVIDIA DRA driver, whose devices carry the NVML device name as the string attribute productName.
// Pure functions: the caller lists the slices (one uncached list, only when a node lacks the label)
// and puts the product on its in-memory node copies; nothing is written back to the API server.
#include <boost/json/value.hpp>

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::platform {

inline constexpr std::string_view kGpuResourceSliceDriver = "gpu.nvidia.com";

// The collection read: apiVersion/kind of the slices the fallback lists.
inline constexpr std::string_view kResourceSliceApiVersion = "resource.k8s.io/v1";
inline constexpr std::string_view kResourceSliceKind = "ResourceSlice";

// The nvidia.com/gpu.product value GFD writes for an NVML device name: characters outside
// [A-Za-z0-9-_. ] dropped, whitespace-separated words joined by hyphens ("NVIDIA GB300" ->
// "NVIDIA-GB300"), so a DRA node and a GFD node of the same hardware carry the same value.
std::string gfd_product_label_value(std::string_view device_name);

// Whether the node has no product label, or an empty one.
bool lacks_gpu_product(const boost::json::value& node);
// Whether any node lacks a non-empty product label (only then is the list worth its cost).
bool any_node_lacks_gpu_product(std::span<const boost::json::value> nodes);

// node name -> product label value, from a ResourceSliceList: slices of the gpu.nvidia.com driver
// with spec.nodeName, the first device (vfio passthrough devices skipped: their name is a PCI-IDs
// name that parses to the wrong architecture) with a string productName attribute.
std::map<std::string, std::string> gpu_products_by_node(const boost::json::value& slice_list);

// Sets the product label on `node` when it lacks one; whether it did.
bool label_gpu_product(boost::json::value& node, std::string_view product);

// Sets the product label on every node that lacks one and has a product in `products`; returns
// the names of those nodes, in `nodes` order. A synthesized label exists only on these copies, so
// a scheduling constraint must never be built from it.
std::vector<std::string> augment_gpu_product_labels(
    std::vector<boost::json::value>& nodes, const std::map<std::string, std::string>& products);

}  // namespace nvcre::platform
