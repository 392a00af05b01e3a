#include "certification/naming.hpp"
#include "certification/options.hpp"

#include <gtest/gtest.h>

#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "k8s/naming.hpp"

using namespace nvcre;

namespace {
api::CategoryOptions options_from_yaml(const char* yaml) {
  return api::decode<api::CategoryOptions>(nvcre::jsonkit::parse_yaml(yaml));
}
}  // namespace

TEST(CertificationOptions, PerCategoryValuesReplaceGlobalOnes) {
  const auto global = options_from_yaml(R"(
nodesPerJob: 4
maxBytes: 16G
thresholds: {busBandwidthGBps: "value >= 400", algBandwidthGBps: "value >= 300"}
imagePullSecrets: [{name: global}]
enableMNNVL: true
)");
  const auto category = options_from_yaml(R"(
nodesPerJob: 2
thresholds: {busBandwidthGBps: "value >= 800"}
enableMNNVL: false
)");
  const auto merged = certification::merge_category_options(global, category);
  EXPECT_EQ(merged.nodesPerJob, 2);
  EXPECT_EQ(merged.maxBytes, "16G");        // kept: not set per category
  EXPECT_EQ(merged.thresholds.size(), 1u);  // maps replace wholesale
  EXPECT_EQ(merged.thresholds.at("busBandwidthGBps"), "value >= 800");
  ASSERT_EQ(merged.imagePullSecrets.size(), 1u);  // empty per-category list keeps global
  EXPECT_EQ(merged.enableMNNVL, false);           // an explicit false is a value
}

TEST(CertificationOptions, WorkloadLabelsMergePerKeyWithCategoryWinning) {
  const auto global = options_from_yaml("workloadMetadata: {labels: {team: infra, cost: a}}");
  const auto category = options_from_yaml("workloadMetadata: {labels: {cost: b, queue: q}}");
  const auto merged = certification::merge_category_options(global, category);
  ASSERT_TRUE(merged.workloadMetadata.has_value());
  EXPECT_EQ(merged.workloadMetadata->labels,
            (std::map<std::string, std::string>{{"cost", "b"}, {"queue", "q"}, {"team", "infra"}}));
  // Only one side with labels: that side's labels, unchanged.
  EXPECT_EQ(certification::merge_category_options(global, {}).workloadMetadata,
            global.workloadMetadata);
  EXPECT_EQ(certification::merge_category_options({}, category).workloadMetadata,
            category.workloadMetadata);
}

TEST(CertificationNaming, WorkflowNameWithoutOptionsIsCertDomainVariant) {
  api::CertificateCategory category{"communication", "nccl", {}};
  EXPECT_EQ(certification::workflow_name("rack7", category), "rack7-communication-nccl");
}

TEST(CertificationNaming, LongNamesAreTruncatedWithTheFnvHash) {
  api::CertificateCategory category{"communication", "nccl-all-reduce", {}};
  const std::string full = "rack7-burnin-communication-nccl-all-reduce";
  const std::string name = certification::workflow_name("rack7-burnin", category);
  EXPECT_EQ(name, k8s::truncate_name(full, 31));
  EXPECT_EQ(name.size(), 31u);
  EXPECT_EQ(name.substr(0, 25), "rack7-burnin-communicatio");
}

TEST(CertificationNaming, OptionSuffixTokensInReferenceOrder) {
  api::CertificateCategory category{"training", "nemotron5-8b", options_from_yaml(R"(
gpusPerNode: 4
maxSteps: 100
enableCheckpoint: true
testScale: intra-rack
enableMNNVL: false
nodesPerJob: 2
exitDurationMins: 10
maxBytes: 8G
)")};
  EXPECT_EQ(certification::option_suffix(category), "n2-nomnnvl-intra-rack-ckpt-s100-e10-g4");
  EXPECT_EQ(
      certification::workflow_name("c", category),
      k8s::truncate_name("c-training-nemotron5-8b-n2-nomnnvl-intra-rack-ckpt-s100-e10-g4", 31));
  api::CertificateCategory nic{"communication", "nccl-all-reduce", options_from_yaml(R"(
rdmaDeviceAccess: hostPath
nicResourceName: rdma/ib
mlnxPerNode: 0
)")};
  EXPECT_EQ(certification::option_suffix(nic), "hostrdma-nic" + k8s::name_hash("rdma/ib") + "-m0");
  api::CertificateCategory device_plugin{"communication", "nccl-all-reduce",
                                         options_from_yaml("rdmaDeviceAccess: devicePlugin")};
  EXPECT_EQ(certification::option_suffix(device_plugin), "dprdma");
  // The upstream names of the two access models, for one certification listing both.
  EXPECT_EQ(certification::workflow_name("oci-gb200-compare-cert", nic).substr(0, 26),
            "oci-gb200-compare-cert-co-");
  EXPECT_EQ(certification::workflow_name("oci-gb200-compare-cert", device_plugin),
            "oci-gb200-compare-cert-co-16c56");
  api::CertificateCategory host_path{"communication", "nccl-all-reduce",
                                     options_from_yaml("rdmaDeviceAccess: hostPath")};
  EXPECT_EQ(certification::workflow_name("oci-gb200-compare-cert", host_path),
            "oci-gb200-compare-cert-co-c1406");
  api::CertificateCategory checkpoint_off{"training", "x",
                                          options_from_yaml("enableCheckpoint: false")};
  EXPECT_EQ(certification::option_suffix(checkpoint_off), "");
}

TEST(CertificationNaming, LabelsAndAnnotations) {
  api::CertificateCategory category{"training", "nemotron5-8b", {}};
  EXPECT_EQ(
      certification::workflow_labels("rack7", category),
      (std::map<std::string, std::string>{{"app.kubernetes.io/managed-by", "nvcre"},
                                          {"nvcre.nvidia.com/category-domain", "training"},
                                          {"nvcre.nvidia.com/category-variant", "nemotron5-8b"},
                                          {"nvcre.nvidia.com/certification", "rack7"}}));
  EXPECT_TRUE(certification::workflow_annotations("").empty());
  EXPECT_EQ(
      certification::workflow_annotations("intra-rack").at("nvcre.nvidia.com/requested-test-scale"),
      "intra-rack");
}
