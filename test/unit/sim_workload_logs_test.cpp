// What kube-sim's Trainer pods write: nccl-tests output shaped by the command line and capped by a
// slow node, Megatron-LM training lines, both read back with the regexes of the shipped
// `nccl-bandwidth` and `megatron-training` LogProfiles.
#include "sim/megatron_log.hpp"
#include "sim/nccl_tests_log.hpp"
#include "sim/trainer_logs.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <chrono>

namespace nvcre::sim {
namespace {

// The shipped profiles' patterns.
const RE2 kBandwidthResult(
    R"(^\s*(?P<size>\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s+[\d.]+\s+(?P<algBW>[\d.]+)\s+(?P<busBW>[\d.]+))");
const RE2 kTransport(R"(NCCL INFO Using network (?P<transport>.+))");
const RE2 kTrainingStep(
    R"(\[(?P<timestamp>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?)\]\s+iteration\s+(?P<iteration>\d+)/\s*\d+\s*\|.*elapsed time per iteration \(ms\):\s*(?P<elapsedTime>[\d.]+)\s*\|.*throughput per GPU \(TFLOP/s/GPU\):\s*(?P<tflops>[\d.]+)\s*\|.*lm loss:\s*(?P<loss>[\d.eE+\-]+))");
const RE2 kApplicationStart(
    R"(using world size: \d+, data-parallel size: \d+, context-parallel size: \d+,.* tensor-model-parallel size: \d+, pipeline-model-parallel size: \d+)");
const RE2 kBeforeTraining(
    R"(\[before the start of training step\]\s+datetime:\s+(?P<timestamp>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+))");
const RE2 kCheckpointSave(
    R"(\[(?P<timestamp>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+)\]\s+saving checkpoint at iteration\s+(?P<step>\d+)\s+to\s+(?P<path>\S+))");
const RE2 kCheckpointDone(
    R"(\[(?P<timestamp>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+)\]\s+successfully saved checkpoint from iteration\s+(?P<step>\d+)\s+to\s+(?P<path>\S+))");
const RE2 kAverage(R"(^# Avg bus bandwidth    : ([\d.e+-]+))");

TEST(SimNcclTestsLog, SizesTakeNcclTestsSuffixes) {
  EXPECT_EQ(parse_nccl_size("8"), 8u);
  EXPECT_EQ(parse_nccl_size("32M"), 32u << 20);
  EXPECT_EQ(parse_nccl_size("8G"), 8ULL << 30);
  EXPECT_EQ(parse_nccl_size("1k"), 1024u);
  EXPECT_EQ(parse_nccl_size("2T"), 2ULL << 40);
  EXPECT_FALSE(parse_nccl_size("12X"));
  EXPECT_FALSE(parse_nccl_size("M"));
  EXPECT_FALSE(parse_nccl_size(""));
}

TEST(SimNcclTestsLog, ArgumentsComeFromTheCatalogsMpirunLine) {
  const auto args = parse_nccl_test_args({"timeout",
                                          "3600",
                                          "/usr/local/mpi/bin/mpirun",
                                          "-np",
                                          "16",
                                          "-bind-to",
                                          "none",
                                          "-x",
                                          "NCCL_DEBUG=INFO",
                                          "/usr/local/bin/all_reduce_perf_mpi",
                                          "-b",
                                          "8",
                                          "-e",
                                          "8G",
                                          "-f",
                                          "2",
                                          "-n",
                                          "100",
                                          "-N",
                                          "3"});
  ASSERT_TRUE(args);
  EXPECT_EQ(args->binary, "all_reduce_perf_mpi");
  EXPECT_EQ(args->collective, "all_reduce");
  EXPECT_EQ(args->min_bytes, 8u);
  EXPECT_EQ(args->max_bytes, 8ULL << 30);
  EXPECT_EQ(args->step_factor, 2u);
  EXPECT_EQ(args->iters, 100);
  EXPECT_EQ(args->cycles, 3);
  const auto sizes = nccl_test_sizes(*args);
  ASSERT_EQ(sizes.size(), 31u);  // 2^3 .. 2^33
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 8ULL << 30);
  EXPECT_EQ(nccl_rows(*args, 16, 370).size(), 93u) << "-N 3 prints the sweep three times";
}

TEST(SimNcclTestsLog, DefaultsAndOtherSpellings) {
  const auto defaults = parse_nccl_test_args({"all_gather_perf"});
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->collective, "all_gather");
  EXPECT_EQ(nccl_test_sizes(*defaults), std::vector<std::uint64_t>{32u << 20});
  EXPECT_EQ(defaults->iters, 20);
  EXPECT_EQ(defaults->warmup_iters, 1);

  const auto shell =
      parse_nccl_test_args({"bash", "-c", "mpirun -np 2 alltoall_perf -b1M -e 4M -f 2 -w 5"});
  ASSERT_TRUE(shell);
  EXPECT_EQ(nccl_test_sizes(*shell), (std::vector<std::uint64_t>{1u << 20, 2u << 20, 4u << 20}));
  EXPECT_EQ(shell->warmup_iters, 5);

  const auto stepped = parse_nccl_test_args(
      {"all_reduce_perf", "--minbytes=1K", "--maxbytes=4K", "--stepbytes", "1K", "-e"});
  ASSERT_TRUE(stepped);
  EXPECT_EQ(nccl_test_sizes(*stepped), (std::vector<std::uint64_t>{1024, 2048, 3072, 4096}));

  const auto bad = parse_nccl_test_args({"all_reduce_perf", "-b", "lots", "-e", "64"});
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->min_bytes, 32u << 20) << "an unreadable value keeps the default";

  EXPECT_FALSE(parse_nccl_test_args({"python", "train.py", "--steps", "10"}));
}

TEST(SimNcclTestsLog, RowsApproachThePeakAndTheBusFactorHolds) {
  NcclTestArgs args;
  args.min_bytes = 8;
  args.max_bytes = 8ULL << 30;
  args.step_factor = 2;
  const auto rows = nccl_rows(args, 16, 371.9);
  ASSERT_EQ(rows.size(), 31u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_LT(rows[i].busbw, 371.9);
    EXPECT_NEAR(rows[i].busbw, rows[i].algbw * 2.0 * 15 / 16, 1e-9);
    if (i > 0) {
      EXPECT_GT(rows[i].busbw, rows[i - 1].busbw);
    }
  }
  EXPECT_GT(rows.back().busbw, 371.9 * 0.99) << "8 GiB is bandwidth bound";
  EXPECT_LT(rows.front().busbw, 0.01) << "8 bytes is latency bound";
  EXPECT_NEAR(nccl_bus_factor("all_gather", 4), 0.75, 1e-12);
  EXPECT_NEAR(nccl_bus_factor("broadcast", 4), 1.0, 1e-12);
}

TEST(SimNcclTestsLog, RowsReadBackWithTheShippedRegex) {
  NcclTestArgs args;
  args.min_bytes = 1ULL << 30;
  args.max_bytes = 1ULL << 30;
  const auto rows = nccl_rows(args, 16, 371.9);
  ASSERT_EQ(rows.size(), 1u);
  const std::string line = format_nccl_row(rows[0], args);
  long long size = 0;
  double algbw = 0, busbw = 0;
  ASSERT_TRUE(RE2::PartialMatch(line, kBandwidthResult, &size, &algbw, &busbw)) << line;
  EXPECT_EQ(size, 1LL << 30);
  EXPECT_NEAR(algbw, rows[0].algbw, 0.005);
  EXPECT_NEAR(busbw, rows[0].busbw, 0.005);
  // nccl-tests' columns: size and count 12 wide, type 8, redop 6, root 6, time 7.
  EXPECT_EQ(line.substr(0, 44), "  1073741824     268435456     float     sum");
  for (const auto& header : nccl_table_header_lines())
    EXPECT_FALSE(RE2::PartialMatch(header, kBandwidthResult)) << header;
  for (const auto& header : nccl_header_lines(args))
    EXPECT_FALSE(RE2::PartialMatch(header, kBandwidthResult)) << header;
}

trainer::PodLogContext reporting_pod(std::vector<std::string> command) {
  trainer::PodLogContext c;
  c.pod = "job-launcher-0-0-abcde";
  c.node = "gpu-node-00";
  c.platform = "aws";
  c.product = "NVIDIA-H100-80GB-HBM3";
  c.gpus = 8;
  c.world_size = 2;
  c.reports_results = true;
  c.command = std::move(command);
  c.workers = {{"job-node-0-0-abcde", "gpu-node-00"}, {"job-node-0-1-abcde", "gpu-node-01"}};
  return c;
}

struct Bandwidths {
  std::vector<double> busbw;
  double average = -1;
  std::vector<double> at;  // when each row is written
  std::string transport;
};

Bandwidths read_back(const LogScript& script) {
  Bandwidths out;
  for (const auto& line : script.lines) {
    long long size = 0;
    double algbw = 0, busbw = 0;
    if (RE2::PartialMatch(line.text, kBandwidthResult, &size, &algbw, &busbw)) {
      out.busbw.push_back(busbw);
      out.at.push_back(line.at);
    }
    RE2::PartialMatch(line.text, kAverage, &out.average);
    RE2::PartialMatch(line.text, kTransport, &out.transport);
  }
  return out;
}

const std::vector<std::string> kAllReduce = {
    "mpirun", "all_reduce_perf_mpi", "-b", "1M", "-e", "8G", "-f", "2"};

TEST(SimTrainerLogScript, NcclTestsRowsAreWrittenAsTheRunGoes) {
  const auto script = trainer::run_script(reporting_pod(kAllReduce));
  const auto read = read_back(script);
  ASSERT_EQ(read.busbw.size(), 14u);  // 1M .. 8G
  EXPECT_GT(read.busbw.back(), 300.0) << "an H100 fabric, no cap";
  EXPECT_GT(read.average, 0);
  EXPECT_EQ(read.transport, "AWS Libfabric");
  for (std::size_t i = 1; i < read.at.size(); ++i) EXPECT_GT(read.at[i], read.at[i - 1]);
  EXPECT_GT(read.at.front(), 0.0);
  EXPECT_LT(read.at.back(), 1.0);
  for (std::size_t i = 1; i < script.lines.size(); ++i)
    EXPECT_GE(script.lines[i].at, script.lines[i - 1].at) << script.lines[i].text;
  // A stalled run stops after the third row.
  ASSERT_LT(script.stall_after, script.lines.size());
  std::size_t rows_before_stall = 0;
  for (std::size_t i = 0; i < script.stall_after; ++i)
    rows_before_stall += RE2::PartialMatch(script.lines[i].text, kBandwidthResult) ? 1 : 0;
  EXPECT_EQ(rows_before_stall, 3u);
}

TEST(SimTrainerLogScript, ASlowNodeCapsEveryRowAndTheAverage) {
  auto context = reporting_pod(kAllReduce);
  context.traits.bus_bandwidth_cap = 50.0;
  const auto read = read_back(trainer::run_script(context));
  ASSERT_EQ(read.busbw.size(), 14u);
  for (const double busbw : read.busbw) EXPECT_LE(busbw, 50.0);
  EXPECT_GT(read.busbw.back(), 49.0) << "the cap is the new peak";
  EXPECT_LE(read.average, 50.0);
  EXPECT_GT(read.average, 0.0);
}

TEST(SimTrainerLogScript, GroupTraitsComeFromTheNodesAnnotations) {
  const auto slow = boost::json::parse(
      R"({"metadata": {"annotations": {"sim.nvcre.nvidia.com/bus-bandwidth-gbps": "50"}}})");
  const auto slower = boost::json::parse(
      R"({"metadata": {"annotations": {"sim.nvcre.nvidia.com/bus-bandwidth-gbps": "20.5",
                                         "sim.nvcre.nvidia.com/stall": "true"}}})");
  const auto plain = boost::json::parse(R"({"metadata": {"name": "n"}})");
  const auto traits = trainer::group_traits({&slow, &plain, nullptr, &slower});
  ASSERT_TRUE(traits.bus_bandwidth_cap);
  EXPECT_EQ(*traits.bus_bandwidth_cap, 20.5);
  EXPECT_TRUE(traits.stalled);
  const auto none = trainer::group_traits({&plain});
  EXPECT_FALSE(none.bus_bandwidth_cap);
  EXPECT_FALSE(none.stalled);
}

TEST(SimMegatronLog, ArgumentsComeFromFlagsOrTheCatalogsEnv) {
  const auto flags =
      parse_megatron_args({"torchrun",
                           "pretrain_gpt.py --train-iters 120 --log-interval=5 --save-interval 40 "
                           "--save /ckpt --global-batch-size 64"},
                          {});
  EXPECT_EQ(flags.train_iters, 120);
  EXPECT_EQ(flags.log_interval, 5);
  EXPECT_EQ(flags.save_interval, 40);
  EXPECT_EQ(flags.save_dir, "/ckpt");
  EXPECT_EQ(flags.global_batch_size, 64);

  const auto env = parse_megatron_args(
      {"/bin/bash", "/config/train.sh"},
      {{"TRAIN_ITERS", "30"}, {"SAVE_INTERVAL", "10"}, {"ENABLE_CHECKPOINT", "true"}});
  EXPECT_EQ(env.train_iters, 30);
  EXPECT_EQ(env.save_interval, 10);
  const auto no_checkpoint = parse_megatron_args(
      {}, {{"SAVE_INTERVAL", "10"}, {"ENABLE_CHECKPOINT", "false"}, {"TRAIN_ITERS", "x"}});
  EXPECT_EQ(no_checkpoint.save_interval, 0);
  EXPECT_EQ(no_checkpoint.train_iters, 50) << "an unreadable value keeps the default";
}

struct Training {
  std::vector<int> steps;
  std::vector<int> saves, saved;
  int starts = 0, before_training = 0;
};

Training read_training(const LogScript& script, std::size_t end) {
  const auto time = std::chrono::sys_days(std::chrono::year(2026) / 2 / 5) + std::chrono::hours(16);
  Training out;
  for (std::size_t i = 0; i < end && i < script.lines.size(); ++i) {
    const std::string line = stamp_script_line(script.lines[i].text, time);
    std::string timestamp, path;
    int iteration = 0;
    double elapsed = 0, tflops = 0;
    std::string loss;
    if (RE2::PartialMatch(line, kTrainingStep, &timestamp, &iteration, &elapsed, &tflops, &loss)) {
      EXPECT_EQ(timestamp, "2026-02-05 16:00:00.000000");
      EXPECT_GT(elapsed, 0);
      EXPECT_GT(tflops, 0);
      out.steps.push_back(iteration);
    }
    if (RE2::PartialMatch(line, kCheckpointSave, &timestamp, &iteration, &path))
      out.saves.push_back(iteration);
    if (RE2::PartialMatch(line, kCheckpointDone, &timestamp, &iteration, &path))
      out.saved.push_back(iteration);
    out.starts += RE2::PartialMatch(line, kApplicationStart) ? 1 : 0;
    out.before_training += RE2::PartialMatch(line, kBeforeTraining) ? 1 : 0;
  }
  return out;
}

TEST(SimMegatronLog, StepAndCheckpointLinesMatchTheShippedProfile) {
  MegatronArgs args;
  args.train_iters = 100;
  args.log_interval = 10;
  args.save_interval = 40;
  const auto script = megatron_script(args, MegatronRun{16, 8, 1843.2, 412.3});
  const auto read = read_training(script, script.lines.size());
  EXPECT_EQ(read.steps, (std::vector<int>{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}));
  EXPECT_EQ(read.saves, (std::vector<int>{40, 80, 100})) << "and the save at the end";
  EXPECT_EQ(read.saved, read.saves);
  EXPECT_EQ(read.starts, 1);
  EXPECT_EQ(read.before_training, 1);
  EXPECT_NE(script.lines.back().text.find("[after training is done]"), std::string::npos);
  EXPECT_EQ(script.lines.front().at, 0.0);
  EXPECT_EQ(script.lines.back().at, 1.0);
  for (std::size_t i = 1; i < script.lines.size(); ++i)
    EXPECT_GE(script.lines[i].at, script.lines[i - 1].at) << script.lines[i].text;
  // A stalled run writes three steps and stops.
  EXPECT_EQ(read_training(script, script.stall_after).steps, (std::vector<int>{10, 20, 30}));
}

TEST(SimMegatronLog, ALongRunLogsFewerStepsOnMultiplesOfTheInterval) {
  MegatronArgs args;
  args.train_iters = 10000;
  args.log_interval = 3;
  const auto script = megatron_script(args, MegatronRun{});
  const auto read = read_training(script, script.lines.size());
  ASSERT_LE(read.steps.size(), static_cast<std::size_t>(kMaxMegatronStepLines));
  ASSERT_GT(read.steps.size(), static_cast<std::size_t>(kMaxMegatronStepLines / 2));
  for (const int step : read.steps) EXPECT_EQ(step % 3, 0) << step;
  EXPECT_TRUE(read.saves.empty());
}

TEST(SimTrainerLogScript, TrainingPodsWriteMegatronAndOthersOnlyStartUp) {
  auto context = reporting_pod({"/bin/bash", "/config/train.sh"});
  context.env = {{"TRAIN_ITERS", "20"}};
  const auto script = trainer::run_script(context);
  EXPECT_EQ(read_training(script, script.lines.size()).steps, (std::vector<int>{10, 20}));
  context.reports_results = false;
  const auto worker = trainer::run_script(context);
  for (const auto& line : worker.lines) EXPECT_EQ(line.at, 0.0) << line.text;
  EXPECT_NE(worker.lines.front().text.find("started on node gpu-node-00"), std::string::npos);
}

}  // namespace
}  // namespace nvcre::sim
