// What a Certification pass that asks for its first category build costs, and what going on with
// the build services' answer costs: a whole new pass over the cache (decode, node discovery, build
// request; how the actor shell went on before) against the asking pass's continuation
// (reconcile::Result::resume), on the manager bench's aws:h100:800 cluster.
//   build/bench/nvcre_certification_pass_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "catalog/catalog.hpp"
#include "certification/build_request.hpp"
#include "certification/reconciler.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/object_cache.hpp"
#include "sim/cluster_profile.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace {

using namespace nvcre;
namespace json = boost::json;

struct Fixture {
  k8s::ObjectCache cache{{{"v1", "Node"}}};  // Nodes kept parsed, as the manager's cache keeps them
  json::value object = jsonkit::parse_yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata:
  name: bench
  namespace: default
  uid: 0b6c5d1e-0000-4000-8000-000000000001
  resourceVersion: "42"
  generation: 1
  creationTimestamp: "2026-03-02T10:00:00Z"
  finalizers: [nvcre.nvidia.com/certification-finalizer]
spec:
  target: {nodeSelector: {nvidia.com/gpu.present: "true"}}
  categories:
  - {domain: communication, variant: nccl-all-reduce}
)");
  k8s::LiveReads live;
  std::optional<k8s::ActionOutcome> outcome;
  std::map<std::string, reconcile::PodLogAnswer> pod_logs;
  json::value memo;
  k8s::Clock::time_point now = *k8s::parse_rfc3339("2026-03-02T10:20:00Z");
  reconcile::BuildAnswers no_answers;
  reconcile::BuildAnswers answers;
  reconcile::Result asking;

  Fixture() {
    for (auto& node : sim::build_cluster_nodes(sim::parse_cluster_profile("aws:h100:800")))
      cache.upsert(std::move(node));
    asking = certification::reconcile_certification(context(no_answers));
    if (asking.wanted_builds.size() != 1 || !asking.resume)
      throw std::logic_error("the first pass did not ask for one build");
    const auto& request = asking.wanted_builds.front();
    answers.emplace(
        reconcile::build_request_key(request),
        certification::answer_build_request(request, cache, catalog::Catalog::builtin()));
  }
  reconcile::Context context(const reconcile::BuildAnswers& with) const {
    return {&object, cache, live, outcome, now, pod_logs, with, memo};
  }
};

const Fixture& fixture() {
  static const Fixture instance;
  return instance;
}

// The pass that asks: decode, discover 800 nodes, build the request.
void BM_AskingPass(benchmark::State& state) {
  const auto& f = fixture();
  for (auto _ : state)
    benchmark::DoNotOptimize(certification::reconcile_certification(f.context(f.no_answers)));
}
BENCHMARK(BM_AskingPass)->Unit(benchmark::kMicrosecond);

// Going on with the answer the old way: the whole pass again.
void BM_NewPassWithAnswer(benchmark::State& state) {
  const auto& f = fixture();
  for (auto _ : state)
    benchmark::DoNotOptimize(certification::reconcile_certification(f.context(f.answers)));
}
BENCHMARK(BM_NewPassWithAnswer)->Unit(benchmark::kMicrosecond);

// Going on with the answer from where the pass asked.
void BM_ResumeWithAnswer(benchmark::State& state) {
  const auto& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.asking.resume(f.answers));
}
BENCHMARK(BM_ResumeWithAnswer)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
