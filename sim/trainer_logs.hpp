#pragma once
// Plausible container logs for the simulated Trainer's pods (kept in sim/pod_logs.hpp, served by
// pods/log): NCCL start-up lines with the platform's transport, an
// nccl-tests bandwidth table or Megatron-style iteration lines on the reporting pod, and the
// node's fault text on a failing pod.
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace nvcre::sim::trainer {

struct PodLogContext {
  std::string pod;
  std::string node;
  std::string platform;          // as platform/detect reads the node
  std::string product;           // the node's nvidia.com/gpu.product
  int gpus = 0;                  // GPUs per node
  int index = 0;                 // completion index
  int world_size = 1;            // worker pods in the TrainJob
  bool reports_results = false;  // rank 0 (or the MPI launcher) prints the results
  bool nccl_test = false;        // the container runs nccl-tests rather than training
};

// From the pod, its node (may be null) and the TrainJob's shape.
PodLogContext log_context(const boost::json::value& pod, const boost::json::value* node,
                          int world_size, bool has_launcher);

std::string startup_log(const PodLogContext& context);
std::string completion_log(const PodLogContext& context);  // start-up lines + results
std::string failure_log(const PodLogContext& context, const std::string& failure);

}  // namespace nvcre::sim::trainer
