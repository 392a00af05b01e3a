#pragma once
// The simulated Trainer's tiny kube-scheduler: which node a TrainJob pod goes to.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace nvcre::sim::trainer {

// The nodes as NodePicker takes them (sorted_nodes), shared by the Trainer's passes until one
// changes: sorted by name, and where each kubernetes.io/hostname label value is.
struct NodeList {
  std::vector<boost::json::value> nodes;
  std::unordered_map<std::string, std::vector<std::size_t>> by_hostname;  // positions, ascending
};

// Nodes are considered in name order; a pod needs a node whose labels satisfy its nodeSelector
// and required node affinity (In/NotIn/Exists/DoesNotExist/Gt/Lt, matchFields metadata.name),
// whose NoSchedule/NoExecute taints (plus the implicit unschedulable / not-ready ones) it
// tolerates, with room for its nvidia.com/gpu request, and that no sibling pod of the same
// replicated job already uses (one rank per node, as full-node GPU requests force anyway).
// A pod whose every required node-affinity term names its nodes (kubernetes.io/hostname In, or
// matchFields metadata.name In), as nvcre's pods do, is checked against those nodes only: the
// others cannot match, and count as not matching. At 10,000 nodes, scanning them all for every
// pod was most of kube-sim's CPU (nvcre_manager_bench --phase fleet, perf).
class NodePicker {
 public:
  using Nodes = std::shared_ptr<const NodeList>;
  // `nodes` sorted by name (sorted_nodes); `gpus_in_use`: by node name, what bound pods that are
  // not finished hold (gpus_held).
  NodePicker(Nodes nodes, const std::map<std::string, std::int64_t>& gpus_in_use);

  struct Placement {
    std::string node;     // empty: unschedulable
    std::string message;  // kube-scheduler's "0/N nodes are available: ..." when unschedulable
  };
  // Picks a node and books the pod's GPUs on it. `taken`: nodes the pod's siblings use.
  Placement place(const boost::json::object& pod_spec, const std::set<std::string>& taken);

  const boost::json::value* node(const std::string& name) const;

 private:
  // The positions of the only nodes that can match the pod's required affinity (ascending,
  // unique), or nullopt when it does not name its nodes.
  std::optional<std::vector<std::size_t>> named_nodes(const boost::json::object& pod_spec) const;

  Nodes nodes_;
  std::map<std::string, std::int64_t> free_gpus_;
};

NodePicker::Nodes sorted_nodes(std::vector<boost::json::value> nodes);

// The pod's nvidia.com/gpu request (limits, else requests, summed over containers).
std::int64_t gpu_request(const boost::json::object& pod_spec);

// The node a pod is bound to and the GPUs it holds there; nullopt when unbound or finished.
std::optional<std::pair<std::string, std::int64_t>> gpus_held(const boost::json::value& pod);

}  // namespace nvcre::sim::trainer
