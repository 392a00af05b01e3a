#include "platform/node_facts.hpp"

#include "jsonkit/paths.hpp"
#include "platform/resource_slices.hpp"

#include <algorithm>

namespace nvcre::platform {
namespace json = boost::json;

std::string node_resource_version(const json::value& node) {
  return jsonkit::string_at(node, {"metadata", "resourceVersion"});
}

NodeFacts derive_node_facts(const json::value& node) {
  const NodeView view(node);
  NodeFacts facts;
  facts.name = std::string(view.name());
  facts.resource_version = node_resource_version(node);
  facts.platform = detect_node_platform(node);
  auto product = view.label(kGpuProductLabel);
  facts.vote = product ? parse_gpu_product(*product) : std::string();
  return facts;
}

CachedNodes cached_nodes(std::span<const NodeRef> refs, const k8s::CacheView& cache) {
  CachedNodes out;
  out.nodes.reserve(refs.size());
  for (const auto& ref : refs) {
    const json::value* node = cache.get({"v1", "Node", "", ref.name});
    if (node == nullptr) {
      out.missing = ref.name;
      break;
    }
    out.nodes.push_back(*node);
    if (!ref.resource_slice_product.empty())
      label_gpu_product(out.nodes.back(), ref.resource_slice_product);
  }
  return out;
}

DetectionFacts aggregate_detection(std::span<const NodeFacts> facts,
                                   std::vector<json::value> nodes) {
  DetectionFacts detection;
  detection.platform = facts.empty() ? detect_platform({}) : facts.front().platform;
  std::vector<ArchitectureVote> votes;
  std::vector<std::string> ballots;
  votes.reserve(facts.size());
  ballots.reserve(facts.size());
  for (const auto& node : facts) {
    votes.push_back({node.name, node.vote});
    ballots.push_back(node.vote);
  }
  detection.majority_architecture = majority_vote(ballots);
  detection.selection = select_primary_architecture(std::span<const ArchitectureVote>(votes));
  detection.nodes = std::move(nodes);
  return detection;
}

DetectionFacts detect_nodes(std::vector<json::value> nodes) {
  std::vector<NodeFacts> facts;
  facts.reserve(nodes.size());
  for (const auto& node : nodes) facts.push_back(derive_node_facts(node));
  return aggregate_detection(facts, std::move(nodes));
}

std::vector<json::value> DetectionFacts::primary_architecture_nodes() const {
  if (selection.architecture.empty() || selection.architecture == kUnknownArchitecture)
    return nodes;
  std::vector<json::value> kept;
  for (const auto& node : nodes) {
    const auto name = NodeView(node).name();
    if (std::find(selection.kept.begin(), selection.kept.end(), name) != selection.kept.end())
      kept.push_back(node);
  }
  return kept;
}

}  // namespace nvcre::platform
