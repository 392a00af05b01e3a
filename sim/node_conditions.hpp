#pragma once
// kube-sim's node-condition fault: a node annotated kNodeConditionAnnotation (e.g.
// "GPUHealthy", or "GPUHealthy,NetworkReady") gets each of those conditions set to False, as a
// node health agent (NVSentinel, GPUd, NPD) would report a failing GPU, once a job has run there
// for a few Trainer steps. The job itself goes on: the fault is for a node health monitor to see.
// Set at start by `kube-sim --node-condition NAME=TYPE` or at run time with
// `kubectl annotate node gpu-node-05 sim.nvcre.nvidia.com/condition-on-run=GPUHealthy`.
#include "sim/store.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::sim {

inline constexpr std::string_view kNodeConditionAnnotation =
    "sim.nvcre.nvidia.com/condition-on-run";
inline constexpr std::string_view kNodeConditionReason = "SimulatedFault";
// How many Trainer steps a job runs on the node before its conditions turn False.
inline constexpr int kNodeConditionAfterSteps = 2;

struct NodeCondition {
  std::string node;
  std::string type;  // a condition type, e.g. GPUHealthy
};

// "gpu-node-05=GPUHealthy" -> {gpu-node-05, GPUHealthy}. Throws std::invalid_argument.
NodeCondition parse_node_condition(std::string_view flag);

// The condition types a node's annotation asks for (empty when it has none).
std::vector<std::string> conditions_on_run(const boost::json::value& node);

// Sets the asked-for conditions of each named node to False (status write, reason
// kNodeConditionReason) where they are not False yet. Returns whether any node changed.
bool apply_node_conditions(Store& store, const ResourceType& node_type,
                           const std::vector<std::string>& node_names, const std::string& now);

}  // namespace nvcre::sim
