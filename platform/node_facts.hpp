#pragma once
// Detection split in two: what is derived once per Node (kept by the
// platform_detector as its Node view, refreshed on Node changes) and the aggregate over one
// target's nodes that a category build resolves against. The aggregate reproduces detect_platform,
// majority_gpu_architecture and select_primary_architecture (platform/detect.hpp) from already
// derived facts; unit tests pin the two against each other.
#include "k8s/object_cache.hpp"
#include "platform/detect.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <span>
#include <string>
#include <vector>

namespace nvcre::platform {

// A node as a reconcile saw it in its cache snapshot; detect requests name their nodes this way.
struct NodeRef {
  std::string name;
  std::string resource_version;
  // The product the node's ResourceSlices report when it has no product label (the DRA fallback,
  // platform/resource_slices.hpp): put on the in-memory copy detection reads, never written back.
  std::string resource_slice_product = {};
  bool operator==(const NodeRef&) const = default;
};

// What detection derives from one Node.
struct NodeFacts {
  std::string name;
  std::string resource_version;
  std::string platform;  // detect_node_platform
  std::string vote;      // the architecture its product label votes for; "" = it does not vote
  // node_gpu_architecture: the vote, or "unknown".
  std::string architecture() const {
    return vote.empty() ? std::string(kUnknownArchitecture) : vote;
  }
};

NodeFacts derive_node_facts(const boost::json::value& node);

// The named Nodes from an informer cache, in `refs` order, each with its ResourceSlice product
// when it has one; `missing` names the first one the cache no longer holds (then `nodes` is
// incomplete).
struct CachedNodes {
  std::vector<boost::json::value> nodes;
  std::string missing;
};
CachedNodes cached_nodes(std::span<const NodeRef> refs, const k8s::CacheView& cache);

// metadata.resourceVersion ("" when absent): whether derived facts still describe a node.
std::string node_resource_version(const boost::json::value& node);

// Detection over one target's nodes.
struct DetectionFacts {
  std::string platform;                   // detect_platform: the first node's, onprem for none
  std::string majority_architecture;      // majority_gpu_architecture: "" when no node votes
  ArchitectureSelection selection;        // select_primary_architecture
  std::vector<boost::json::value> nodes;  // the nodes themselves, in request (name-sorted) order
  // GCP only: node -> the TCPXO plugin tags of GKE's installer pods on it (kube-system), read
  // with the nodes so that a build decides the GCP H100 images from the same snapshot.
  std::map<std::string, std::vector<std::string>> tcpxo_plugin_tags = {};

  // The nodes of the primary architecture; every node when that is unknown (a build sizes its
  // job against these: NIC detection, GPU capacity).
  std::vector<boost::json::value> primary_architecture_nodes() const;
};

// `facts[i]` describes `nodes[i]`.
DetectionFacts aggregate_detection(std::span<const NodeFacts> facts,
                                   std::vector<boost::json::value> nodes);

// Derives every node's facts, then aggregates (offline render, golden answerer).
DetectionFacts detect_nodes(std::vector<boost::json::value> nodes);

}  // namespace nvcre::platform
