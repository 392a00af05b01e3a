#include "cli/gpu_nodes.hpp"

#include "api/labels.hpp"
#include "k8s/object_cache.hpp"
#include "platform/detect.hpp"
#include "workflow/node_discovery.hpp"

#include <boost/json.hpp>

#include <map>
#include <stdexcept>

namespace nvcre::cli {
namespace json = boost::json;

namespace {
const k8s::ResourceRef kNodes{"", "v1", "nodes", false};
}  // namespace

std::vector<json::value> list_gpu_nodes(k8s::RestClient& client) {
  std::vector<json::value> nodes;
  k8s::ListOptions options;
  options.label_selector = std::string(api::kGpuPresentLabel) + "=true";
  options.limit = 500;
  do {
    json::value page = client.list(kNodes, "", options);
    if (const auto* items = page.as_object().if_contains("items"); items && items->is_array())
      for (auto& item : items->as_array()) nodes.push_back(std::move(item));
    const json::value* next = nullptr;
    if (const auto* metadata = page.as_object().if_contains("metadata");
        metadata && metadata->is_object())
      next = metadata->as_object().if_contains("continue");
    options.continue_token = next && next->is_string() ? std::string(next->as_string()) : "";
  } while (!options.continue_token.empty());
  return nodes;
}

std::string uniform_gpu_product(const std::vector<json::value>& nodes) {
  if (nodes.empty()) throw std::runtime_error("no GPU nodes match target");
  std::map<std::string, int> products;
  for (const auto& node : nodes)
    if (auto label = platform::NodeView(node).label(platform::kGpuProductLabel);
        label && !label->empty())
      ++products[std::string(*label)];
  if (products.empty()) throw std::runtime_error("no nodes have nvidia.com/gpu.product label");
  if (products.size() == 1) return products.begin()->first;
  std::string seen;
  for (const auto& [product, count] : products)
    seen += (seen.empty() ? "" : ", ") + product + " (" + std::to_string(count) + ")";
  throw std::runtime_error("heterogeneous GPUs: " + seen);
}

TargetNodes discover_target(k8s::RestClient& client, const std::optional<api::TargetSpec>& target) {
  k8s::ObjectCache cache;
  try {
    for (auto& node : list_gpu_nodes(client)) {
      node.as_object()["apiVersion"] = "v1";
      node.as_object()["kind"] = "Node";
      cache.upsert(std::move(node));
    }
  } catch (const k8s::ApiError& error) {
    throw std::runtime_error(std::string("node discovery: ") + error.what());
  }
  auto discovered = workflow::discover_target_nodes(cache, target);
  if (discovered.nodes.empty()) {
    std::string message = "no GPU nodes match target";
    if (!discovered.cordoned.empty())
      message += " (cordoned: " + workflow::join(discovered.cordoned) + ")";
    throw std::runtime_error(message + "; check the nodeSelector against `nvcrectl cluster info`");
  }
  TargetNodes out;
  try {
    out.product = uniform_gpu_product(discovered.nodes);
  } catch (const std::runtime_error& error) {
    throw std::runtime_error(std::string(error.what()) +
                             "; narrow the target with a nvidia.com/gpu.product nodeSelector");
  }
  out.nodes = std::move(discovered.nodes);
  return out;
}

}  // namespace nvcre::cli
