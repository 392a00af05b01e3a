// The embedded catalog: every entry builds for every (architecture, platform) pair with the
// defaults the Certification controller would pass, and every override decodes. A broken entry
// fails here, never at a user. Also: max_valid_nodes and the timeoutPerJob precedence.
#include "api/codec.hpp"
#include "api/workflow.hpp"
#include "catalog/catalog.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::catalog::BuildConfig;
using nvcre::catalog::Catalog;
using nvcre::catalog::CatalogError;

void check_dependency(const nvcre::api::DependencySpec& dep, const std::string& where) {
  for (const char* key : {"apiVersion", "kind"}) {
    EXPECT_TRUE(dep.resource.contains(key) && dep.resource.at(key).is_string())
        << where << " lacks " << key;
  }
  const json::value* name = dep.resource.contains("metadata")
                                ? dep.resource.at("metadata").as_object().if_contains("name")
                                : nullptr;
  EXPECT_TRUE(name != nullptr && name->is_string() && !name->get_string().empty())
      << where << " lacks metadata.name";
}

TEST(CatalogBuiltin, EveryEntryBuildsOnEveryArchitectureAndPlatform) {
  const Catalog& catalog = Catalog::builtin();
  ASSERT_FALSE(catalog.list().empty());
  std::vector<std::string> platforms{""};
  for (const auto& name : nvcre::platform::kPlatformNames) platforms.emplace_back(name);
  int built = 0;
  for (const auto& key : catalog.list()) {
    const auto* entry = catalog.lookup(key.domain, key.variant);
    ASSERT_NE(entry, nullptr);
    for (const auto& arch : nvcre::platform::known_gpu_architectures()) {
      for (const auto& platform : platforms) {
        const std::string where = key.to_string() + " on " + std::string(arch) + "/" + platform;
        const auto defaults = nvcre::platform::gpu_defaults(arch, platform);
        BuildConfig config;
        config.gpu_architecture = std::string(arch);
        config.gpus_per_node = defaults.gpusPerNode;
        config.mlnx_per_node = defaults.mlnxPerNode;
        config.enable_mnnvl = nvcre::platform::default_enable_mnnvl(arch);
        config.nodes_per_job = entry->max_valid_nodes(8, defaults.gpusPerNode, arch);
        ASSERT_GT(config.nodes_per_job, 0) << where;
        nvcre::api::WorkflowSpec spec;
        ASSERT_NO_THROW(spec = entry->build({}, config)) << where;
        // The typed spec re-encodes and decodes to itself.
        EXPECT_EQ(nvcre::api::decode<nvcre::api::WorkflowSpec>(nvcre::api::encode(spec)), spec)
            << where;
        EXPECT_TRUE(spec.jobTemplate.spec.workload.trainJob.has_value()) << where;
        for (std::size_t i = 0; i < spec.dependencies.size(); ++i) {
          check_dependency(spec.dependencies[i],
                           where + " dependencies[" + std::to_string(i) + "]");
        }
        for (std::size_t i = 0; i < spec.overrides.size(); ++i) {
          const auto& o = spec.overrides[i];
          const std::string at = where + " overrides[" + std::to_string(i) + "]";
          if (!o.jobTemplate.is_null()) {
            EXPECT_NO_THROW((void)nvcre::api::decode<nvcre::api::JobTemplateSpec>(o.jobTemplate))
                << at;
          }
          for (std::size_t d = 0; d < o.dependencies.size(); ++d) {
            check_dependency(o.dependencies[d], at + ".dependencies[" + std::to_string(d) + "]");
          }
          EXPECT_TRUE(!o.jobTemplate.is_null() || !o.dependencies.empty() || o.orchestration)
              << at << " is empty";
        }
        ++built;
      }
    }
  }
  EXPECT_GT(built, 0);
}

TEST(CatalogBuiltin, ArchitectureIsRequired) {
  const auto* entry = Catalog::builtin().lookup("communication", "nccl-all-reduce");
  ASSERT_NE(entry, nullptr);
  try {
    (void)entry->build({}, BuildConfig{});
    FAIL();
  } catch (const CatalogError& e) {
    EXPECT_STREQ(e.what(),
                 "communication/nccl-all-reduce: GPUArchitecture is required but was not provided");
  }
}

Catalog meta_catalog(const std::string& meta) {
  return Catalog::load({{"catalog/entries/t/e.yaml", "jobTemplate: {spec: {}}\n"},
                        {"catalog/entries/t/e/meta.yaml", meta}});
}

TEST(CatalogMaxValidNodes, MinGpusAndTpPp) {
  const Catalog catalog =
      meta_catalog("minGPUs: 32\nparallelism: {default: {tp: 4, pp: 1}, h100: {tp: 8, pp: 1}}\n");
  const auto* e = catalog.lookup("t", "e");
  EXPECT_EQ(e->max_valid_nodes(10, 8, "h100"), 10);
  EXPECT_EQ(e->max_valid_nodes(3, 8, "h100"), 0);   // 24 < 32 GPUs
  EXPECT_EQ(e->max_valid_nodes(9, 4, "gb200"), 9);  // default tp 4: any n*4
  EXPECT_EQ(e->max_valid_nodes(9, 3, "gb300"),
            0);  // gb300 uses gb200 -> default tp 4: n*3 % 4 needs n=8 (24 < 32)
  EXPECT_EQ(e->max_valid_nodes(0, 8, "h100"), 0);
}

TEST(CatalogMaxValidNodes, ExpertParallelism) {
  const Catalog catalog = meta_catalog("parallelism: {default: {tp: 2, pp: 2, ep: 3}}\n");
  const auto* e = catalog.lookup("t", "e");
  // total must be a multiple of tp*pp*ep = 12.
  EXPECT_EQ(e->max_valid_nodes(5, 4, "h100"), 3);
  EXPECT_EQ(e->max_valid_nodes(2, 4, "h100"), 0);
}

TEST(CatalogTimeout, Precedence) {
  const Catalog with = meta_catalog("timeoutPerJob: 2h\n");
  const Catalog without = meta_catalog("minGPUs: 0\n");
  EXPECT_EQ(with.lookup("t", "e")->effective_timeout_per_job("30m", "diagnose"), "30m");
  EXPECT_EQ(with.lookup("t", "e")->effective_timeout_per_job("", "diagnose"), "2h");
  EXPECT_EQ(without.lookup("t", "e")->effective_timeout_per_job("", "diagnose"), "15m");
  EXPECT_EQ(without.lookup("t", "e")->effective_timeout_per_job("", "full-scale"), "1h");
  EXPECT_EQ(without.lookup("t", "e")->effective_timeout_per_job("", ""), "1h");
}

TEST(CatalogBuild, RepeatCountAndMaxRestartsApplyAfterRender) {
  const Catalog catalog = Catalog::load(
      {{"catalog/entries/t/e.yaml",
        "jobTemplate: {spec: {checkpoint: {$if: {param: enableCheckpoint}, $then: {pvcName: p, "
        "maxRestarts: 3}}}}\n"
        "orchestration: {iterations: 1, execution: {timeoutPerJob: '{{timeoutPerJob}}'}}\n"}});
  BuildConfig config;
  config.gpu_architecture = "h100";
  config.options.repeatCount = 4;
  config.options.maxRestarts = 7;
  auto spec = catalog.lookup("t", "e")->build({}, config);
  EXPECT_EQ(spec.orchestration.iterations, 4);
  EXPECT_FALSE(spec.jobTemplate.spec.checkpoint.has_value());
  config.options.enableCheckpoint = true;
  spec = catalog.lookup("t", "e")->build({}, config);
  ASSERT_TRUE(spec.jobTemplate.spec.checkpoint.has_value());
  EXPECT_EQ(spec.jobTemplate.spec.checkpoint->maxRestarts, 7);
  EXPECT_EQ(spec.orchestration.execution.timeoutPerJob, "1h");
}

}  // namespace

namespace {

TEST(CatalogBuild, ExpertParallelismError) {
  const Catalog catalog = Catalog::load(
      {{"catalog/entries/t/e.yaml", "jobTemplate: {spec: {}}\n"},
       {"catalog/entries/t/e/meta.yaml", "parallelism: {default: {tp: 2, pp: 1, ep: 4}}\n"}});
  BuildConfig config;
  config.gpu_architecture = "h100";
  config.nodes_per_job = 3;
  config.gpus_per_node = 4;
  try {
    (void)catalog.lookup("t", "e")->build({}, config);
    FAIL();
  } catch (const CatalogError& e) {
    EXPECT_STREQ(
        e.what(),
        "t/e: totalGPUs=12, DP=6 must be divisible by EP=4; totalGPUs must be a multiple of 8 "
        "(TP×PP×EP=2×1×4)");
  }
  config.nodes_per_job = 4;
  EXPECT_NO_THROW((void)catalog.lookup("t", "e")->build({}, config));
}

}  // namespace
