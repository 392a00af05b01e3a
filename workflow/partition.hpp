#pragma once
// Partitioning target nodes into groups, one Job each. Every input node lands
// in at least one group; nodes are shared only by overflow groups, which borrow already-tested
// nodes so that every group has exactly nodesPerJob nodes.
#include "k8s/label_selector.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace nvcre::workflow {

struct PartitionNode {
  std::string name;
  k8s::Labels labels;
};

struct PartitionInput {
  std::vector<PartitionNode> nodes;
  std::int64_t nodes_per_job = 0;
  std::string topology_key;    // "" = simple chunking by name
  bool strict_domain = false;  // one group per topology domain at its natural size
};

struct PartitionGroup {
  std::string name;  // group-<i>, group-<i>-overflow
  std::vector<std::string> nodes;
  std::vector<std::string> domains;
  bool overflow = false;
  bool operator==(const PartitionGroup&) const = default;
};

// Throws std::invalid_argument with upstream's wording: "nodesPerJob must be >= 1, got 0",
// "no nodes provided", `node "n1" missing topology label "nvidia.com/gpu.clique"`.
std::vector<PartitionGroup> partition_nodes(PartitionInput input);

}  // namespace nvcre::workflow
