#pragma once
// Megatron-LM training output for kube-sim's training pods, in the layout the shipped
// `megatron-training` LogProfile reads:
//   "using world size: 16, data-parallel size: 2, context-parallel size: 1, ..."  (start)
//   "[before the start of training step] datetime: 2026-02-05 16:01:40.326255"   (start)
//   "[2026-02-05 16:03:52.889599] iteration       10/     100 | consumed samples: ... |
//    elapsed time per iteration (ms): 1843.2 | throughput per GPU (TFLOP/s/GPU): 412.3 | ...
//    | lm loss: 9.350000E+00 | ..."                                                  (steps)
//   "[...] saving checkpoint at iteration      50 to /mnt/workspace/checkpoints in torch_dist
//    format", "[...] scheduled an async checkpoint save at iteration      50 to ..." and
//    "[...] successfully saved checkpoint from iteration      50 to ..."
//   "[after training is done] datetime: ..."                                        (end)
// The application's own clock is kAppTimeToken (sim/log_script.hpp), filled when a line is
// written.
#include "sim/log_script.hpp"

#include <map>
#include <string>
#include <vector>

namespace nvcre::sim {

struct MegatronArgs {
  int train_iters = 50;   // --train-iters, else env TRAIN_ITERS
  int log_interval = 10;  // --log-interval
  int save_interval = 0;  // --save-interval, else env SAVE_INTERVAL when ENABLE_CHECKPOINT; 0: none
  int global_batch_size = 256;                          // --global-batch-size
  std::string save_dir = "/mnt/workspace/checkpoints";  // --save
};

// At most this many step lines: a longer run logs every k-th interval (k a whole number, so the
// logged iterations stay multiples of --log-interval, as a LogProfile's logInterval expects).
inline constexpr int kMaxMegatronStepLines = 200;

// From the container's command and args (split at whitespace; "--flag N" and "--flag=N") and its
// env. A value that does not parse as a positive number keeps the default.
MegatronArgs parse_megatron_args(const std::vector<std::string>& words,
                                 const std::map<std::string, std::string>& env);

struct MegatronRun {
  int world_size = 1;            // ranks (nodes x GPUs per node)
  int tensor_parallel = 1;       // GPUs per node, at most 8
  double iteration_ms = 1843.2;  // elapsed time per iteration
  double tflops_per_gpu = 400;
};

// The reporting rank's lines: start-up lines at 0, one step line per logged iteration at
// iteration / train_iters, checkpoint save start and done lines after the step they follow,
// the final line at 1. stall_after: the lines up to and including the third step line.
LogScript megatron_script(const MegatronArgs& args, const MegatronRun& run);

}  // namespace nvcre::sim
