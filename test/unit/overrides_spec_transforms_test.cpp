#include "overrides/spec_transforms.hpp"

#include <gtest/gtest.h>

#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "catalog/catalog.hpp"
#include "platform/gpu_defaults.hpp"
#include "overrides/overrides.hpp"

using namespace nvcre;

// Without a (configured) gangScheduler and without image or label options, the post-resolve
// transforms leave every catalog entry's Workflow exactly as it was: turning gang scheduling on is
// opt-in and a Certification without it renders byte-identically.
TEST(CertificationTransforms, NoGangSchedulerLeavesEveryEntryUnchanged) {
  const auto& catalog = catalog::Catalog::builtin();
  std::size_t checked = 0;
  for (const auto& key : catalog.list()) {
    for (std::string_view arch : {"h100", "gb200"}) {
      for (std::string_view platform : {"aws", "gcp", "onprem"}) {
        catalog::BuildConfig config;
        config.gpu_architecture = std::string(arch);
        const auto defaults = platform::gpu_defaults(arch, platform);
        config.gpus_per_node = defaults.gpusPerNode;
        config.mlnx_per_node = defaults.mlnxPerNode;
        config.nodes_per_job = 8;  // enough GPUs for every model entry
        api::WorkflowSpec spec = catalog.lookup(key.domain, key.variant)->build({}, config);
        const auto context =
            nvcre::overrides::match_context_for(spec, std::string(platform), std::string(arch), 0);
        const api::WorkflowSpec resolved = nvcre::overrides::resolve_overrides(spec, context).spec;
        for (const std::optional<api::GangSchedulerSpec>& gang :
             {std::optional<api::GangSchedulerSpec>{},
              std::optional<api::GangSchedulerSpec>{api::GangSchedulerSpec{}}}) {
          api::WorkflowSpec transformed = resolved;
          nvcre::overrides::apply_resolved_transforms(transformed, {}, gang);
          EXPECT_EQ(nvcre::jsonkit::to_pretty_json(api::encode(transformed)),
                    nvcre::jsonkit::to_pretty_json(api::encode(resolved)))
              << key.to_string() << " on " << platform << "/" << arch;
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 20u);
}

TEST(CertificationTransforms, ImageOverrideReplacesPrimaryAndMatchingInitImages) {
  auto spec = api::decode<api::WorkflowSpec>(nvcre::jsonkit::parse_yaml(R"(
jobTemplate:
  spec:
    workload:
      trainJob: {runtimeRef: {name: rt}, trainer: {image: old:1}}
orchestration: {}
dependencies:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainingRuntime
    metadata: {name: rt}
    spec:
      template:
        spec:
          replicatedJobs:
            - name: node
              template:
                spec:
                  template:
                    spec:
                      initContainers: [{name: same, image: old:1}, {name: other, image: tools:2}]
                      containers: [{name: node, image: old:1}, {name: sidecar, image: side:3}]
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: untouched}
    data: {image: old:1}
)"));
  nvcre::overrides::apply_image_override(spec, "new:9");
  const auto encoded = api::encode(spec);
  EXPECT_EQ(
      encoded.at("jobTemplate").at("spec").at("workload").at("trainJob").at("trainer").at("image"),
      "new:9");
  const auto& pod = encoded.at("dependencies")
                        .at(0)
                        .at("spec")
                        .at("template")
                        .at("spec")
                        .at("replicatedJobs")
                        .at(0)
                        .at("template")
                        .at("spec")
                        .at("template")
                        .at("spec");
  EXPECT_EQ(pod.at("containers").at(0).at("image"), "new:9");
  EXPECT_EQ(pod.at("containers").at(1).at("image"), "side:3");
  EXPECT_EQ(pod.at("initContainers").at(0).at("image"), "new:9");
  EXPECT_EQ(pod.at("initContainers").at(1).at("image"), "tools:2");
  EXPECT_EQ(encoded.at("dependencies").at(1).at("data").at("image"), "old:1");
}
