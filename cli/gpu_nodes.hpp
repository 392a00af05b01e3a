#pragma once
// The cluster's GPU nodes as nvcrectl's cluster commands see them: listed from the API server
// (nvidia.com/gpu.present=true, page by page), narrowed to a target with the controller's own
// discovery (workflow/node_discovery.hpp: selectors, expressions, names, taints, the cordon
// filter), and the one GPU product they must share.
#include "api/workflow.hpp"
#include "k8s/rest_client.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nvcre::cli {

// Every node labelled nvidia.com/gpu.present=true, page by page. API errors are thrown as they
// come (k8s::ApiError / k8s::TransportError).
std::vector<boost::json::value> list_gpu_nodes(k8s::RestClient& client);

// The product every labelled node carries. Throws `no nodes have nvidia.com/gpu.product label` or
// `heterogeneous GPUs: <p1> (n), <p2> (m)` (products sorted); callers add what to do about it.
std::string uniform_gpu_product(const std::vector<boost::json::value>& nodes);

// The target's schedulable GPU nodes (name-sorted) and the one product they share.
struct TargetNodes {
  std::vector<boost::json::value> nodes;
  std::string product;
};

// Throws `node discovery: ...` for an API error, `no GPU nodes match target` (naming the cordoned
// matches, if any) and uniform_gpu_product's errors with a remedy appended.
TargetNodes discover_target(k8s::RestClient& client, const std::optional<api::TargetSpec>& target);

}  // namespace nvcre::cli
