#pragma once
// What the simulated Trainer's pods write (kept in sim/pod_logs.hpp, served by pods/log), as a
// LogScript (sim/log_script.hpp) the Trainer plays out over the run: NCCL start-up lines with the
// platform's transport on every pod; on the reporting pod (the MPI launcher, else worker 0)
// nccl-tests output shaped by the container's command line (sim/nccl_tests_log.hpp) or a
// Megatron-LM training log (sim/megatron_log.hpp); and the node's fault text on a failing pod.
// A group that includes a node annotated kNodeBusBandwidthAnnotation reports at most that bus
// bandwidth; one that includes a node annotated kNodeStallAnnotation stops after a few results.
#include "sim/log_script.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nvcre::sim::trainer {

struct Peer {
  std::string pod;
  std::string node;
};

// What the group's nodes impose on every pod of a TrainJob.
struct GroupTraits {
  std::optional<double> bus_bandwidth_cap;  // GB/s: the lowest cap of the group's nodes
  bool stalled = false;                     // a node of the group stalls
};

// From the nodes the TrainJob's pods run on (null entries are skipped).
GroupTraits group_traits(const std::vector<const boost::json::value*>& nodes);

struct PodLogContext {
  std::string pod;
  std::string node;
  std::string platform;          // as platform/detect reads the node
  std::string product;           // the node's nvidia.com/gpu.product
  int gpus = 0;                  // GPUs per node
  int index = 0;                 // completion index
  int world_size = 1;            // worker pods in the TrainJob
  bool reports_results = false;  // worker 0 / the last worker (or the MPI launcher) print results
  bool launcher = false;         // this pod is the MPI launcher
  std::vector<std::string> command;        // the main container's command then args
  std::map<std::string, std::string> env;  // the main container's literal env values
  std::vector<Peer> workers;               // the TrainJob's worker pods by completion index
  GroupTraits traits;
};

// The container the simulation writes to: the one named `node`, else the first.
std::string main_container(const boost::json::value& pod);

// From the pod, its node (may be null) and the TrainJob's shape.
PodLogContext log_context(const boost::json::value& pod, const boost::json::value* node,
                          int world_size, bool has_launcher);

// A bus bandwidth in the right range for the part (GB/s, all-reduce across nodes).
double bus_bandwidth(const std::string& product);

// Everything the pod writes on a successful run; lines at 0 are written when it starts.
LogScript run_script(const PodLogContext& context);
// The lines a failing pod writes when it fails.
std::vector<std::string> failure_lines(const PodLogContext& context, const std::string& failure);

}  // namespace nvcre::sim::trainer
