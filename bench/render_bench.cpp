// Offline render cost: one category built into its Workflow (catalog build, override resolution,
// post-resolve transforms, encode) for every catalog category on every supported (GPU architecture,
// platform) pair, as `nvcrectl certification render` and the controller do it.
//   build/bench/nvcre_render_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "api/objects.hpp"
#include "catalog/catalog.hpp"
#include "certification/build.hpp"
#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"

namespace {

using namespace nvcre;

struct RenderCase {
  api::Certification certification;
  certification::BuildInput input;
};

// One Certification per (category, architecture, platform), with a gang scheduler so the whole
// transform chain runs; nodesPerJob large enough for every model's minimum.
struct RenderCases {
  std::vector<RenderCase> accepted;
  std::size_t refused =
      0;  // pairs the catalog rejects (reported, so a regression cannot hide here)
};

RenderCases every_render_case() {
  RenderCases cases;
  for (const auto& key : catalog::Catalog::builtin().list()) {
    for (std::string_view arch : platform::known_gpu_architectures()) {
      for (std::string_view platform_name : platform::kPlatformNames) {
        RenderCase render_case;
        auto& cert = render_case.certification;
        cert.metadata.name = "bench";
        cert.metadata.namespace_ = "default";
        cert.spec.target.nodeSelector = {{"nvidia.com/gpu.present", "true"}};
        cert.spec.gangScheduler = api::GangSchedulerSpec{"kai-scheduler", "bench", ""};
        api::CategoryOptions options;
        options.nodesPerJob = 8;
        cert.spec.categories.push_back({key.domain, key.variant, options});
        render_case.input.offline = true;
        render_case.input.gpu_architecture = std::string(arch);
        render_case.input.nodes.push_back(
            platform::synthetic_node(cert.spec.target.nodeSelector, platform_name));
        try {  // keep only the pairs the catalog accepts (a model may not fit an architecture)
          (void)certification::build_category_workflow(cert, cert.spec.categories.front(),
                                                       render_case.input);
          cases.accepted.push_back(std::move(render_case));
        } catch (const std::exception&) {
          ++cases.refused;
        }
      }
    }
  }
  return cases;
}

void BM_RenderCategory(benchmark::State& state) {
  static const RenderCases all = every_render_case();
  const auto& cases = all.accepted;
  std::size_t next = 0;
  for (auto _ : state) {
    const auto& render_case = cases[next++ % cases.size()];
    auto build = certification::build_category_workflow(
        render_case.certification, render_case.certification.spec.categories.front(),
        render_case.input);
    benchmark::DoNotOptimize(api::encode_object(build.workflow));
  }
  state.counters["pairs"] = static_cast<double>(cases.size());
  state.counters["refused"] = static_cast<double>(all.refused);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RenderCategory)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
