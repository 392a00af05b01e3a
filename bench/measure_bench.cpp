// What a measurement pass spends on its LogProfile versus its log: compiling a shipped profile
// (decode + every RE2 pattern) against scanning a real 13 KB nccl-tests capture with it. Decides
// whether compiled profiles are worth caching across passes, and what a cached one costs.
//   build/bench/nvcre_measure_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "api/logprofiles.hpp"
#include "api/measurement.hpp"
#include "measure/bandwidth.hpp"
#include "measure/log_profile.hpp"
#include "measurement/profile_cache.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace {

using namespace nvcre;

const boost::json::value& shipped(std::string_view name) {
  for (const auto& profile : api::shipped_logprofiles()) {
    if (profile.at("metadata").at("name").as_string() == name) return profile;
  }
  throw std::runtime_error("no shipped LogProfile " + std::string(name));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void CompileShippedProfile(benchmark::State& state, std::string_view name) {
  const boost::json::value& manifest = shipped(name);
  for (auto _ : state) {
    auto compiled = measure::compile_profile(api::decode<api::LogProfile>(manifest));
    benchmark::DoNotOptimize(compiled);
  }
}
BENCHMARK_CAPTURE(CompileShippedProfile, nccl_bandwidth, "nccl-bandwidth");
BENCHMARK_CAPTURE(CompileShippedProfile, megatron_training, "megatron-training");

// What a pass pays instead once the profile version is cached: a copy of the compiled profile.
void CachedShippedProfile(benchmark::State& state, std::string_view name) {
  measurement::CompiledProfileCache cache;
  const boost::json::value& manifest = shipped(name);
  for (auto _ : state) {
    auto compiled = cache.get(manifest);
    benchmark::DoNotOptimize(compiled);
  }
}
BENCHMARK_CAPTURE(CachedShippedProfile, nccl_bandwidth, "nccl-bandwidth");
BENCHMARK_CAPTURE(CachedShippedProfile, megatron_training, "megatron-training");

void ScanRealNcclCapture(benchmark::State& state) {
  const auto profile =
      measure::compile_profile(api::decode<api::LogProfile>(shipped("nccl-bandwidth")));
  const std::string log = read_file(
      NVCRE_SOURCE_DIR "/test/testdata/measure-bandwidth/nccl-allreduce-2node-pdt/input.log");
  for (auto _ : state) {
    auto scan = measure::scan_bandwidth(profile, log);
    benchmark::DoNotOptimize(scan);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * log.size()));
}
BENCHMARK(ScanRealNcclCapture);

}  // namespace

BENCHMARK_MAIN();
