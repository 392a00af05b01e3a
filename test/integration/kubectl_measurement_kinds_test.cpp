// The real kubectl against kube-sim for the measurement kinds: the cluster-scoped LogProfile (no
// namespace, no status) and the namespaced measurements with their status subresource, created
// from examples/measurements.yaml.
#include "kubectl_support.hpp"

#include <boost/json.hpp>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

class KubectlMeasurementKinds : public KubectlTest {
 protected:
  void SetUp() override {
    KubectlTest::SetUp();
    create_crds();
    create_namespace("gpu-validation");
  }

  void create_examples() const {
    auto result = kubectl("create -f " + source("examples/measurements.yaml"));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_TRUE(contains(result.output, "logprofile.nvcre.nvidia.com/my-trainer-logs created"))
        << result.output;
    EXPECT_TRUE(
        contains(result.output, "goodputmeasurement.nvcre.nvidia.com/train-job-goodput created"))
        << result.output;
    EXPECT_TRUE(
        contains(result.output, "bandwidthmeasurement.nvcre.nvidia.com/ar-job-bandwidth created"))
        << result.output;
  }
};

TEST_F(KubectlMeasurementKinds, ApiResourcesShowsTheScopes) {
  auto cluster = kubectl("api-resources --api-group=nvcre.nvidia.com --namespaced=false -o name");
  ASSERT_EQ(cluster.exit_code, 0) << cluster.output;
  EXPECT_EQ(cluster.output, "logprofiles.nvcre.nvidia.com\n");
  auto namespaced = kubectl("api-resources --api-group=nvcre.nvidia.com --namespaced=true -o name");
  EXPECT_TRUE(contains(namespaced.output, "goodputmeasurements.nvcre.nvidia.com"))
      << namespaced.output;
  EXPECT_TRUE(contains(namespaced.output, "bandwidthmeasurements.nvcre.nvidia.com"))
      << namespaced.output;
}

TEST_F(KubectlMeasurementKinds, LogProfileIsClusterScoped) {
  create_examples();
  auto got = kubectl("get logprofile my-trainer-logs -o json");
  ASSERT_EQ(got.exit_code, 0) << got.output;
  auto object = parse_json(got);
  EXPECT_FALSE(object.at("metadata").as_object().contains("namespace"));
  // The CRD defaults are applied on create.
  EXPECT_EQ(object.at("spec").at("workerStrategy").at("replicatedJobName"), "trainer");
  EXPECT_EQ(object.at("spec").at("workerStrategy").at("trainingStepPod"), "last");

  auto listed = kubectl("get logprofiles -o name");
  EXPECT_EQ(listed.output, "logprofile.nvcre.nvidia.com/my-trainer-logs\n");
  // A namespace flag does not scope a cluster-scoped kind.
  auto in_ns = kubectl("get logprofiles -n gpu-validation -o name");
  EXPECT_EQ(in_ns.output, "logprofile.nvcre.nvidia.com/my-trainer-logs\n");

  auto patched =
      kubectl("patch logprofile my-trainer-logs --type=merge -p '{\"spec\":{\"warmupSteps\":7}}'");
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  object = parse_json(kubectl("get logprofile my-trainer-logs -o json"));
  EXPECT_EQ(object.at("spec").at("warmupSteps"), 7);
  EXPECT_EQ(object.at("metadata").at("generation"), 2);

  // No status subresource, and no status field either.
  auto status = kubectl(
      "patch logprofile my-trainer-logs --subresource=status --type=merge "
      "-p '{\"status\":{\"loaded\":true}}'");
  EXPECT_NE(status.exit_code, 0) << status.output;

  auto bad = kubectl(
      "patch logprofile my-trainer-logs --type=merge "
      "-p '{\"spec\":{\"workerStrategy\":{\"type\":\"Double\"}}}'");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(contains(bad.output,
                       "spec.workerStrategy.type: Unsupported value: \"Double\": supported "
                       "values: \"Single\", \"Multi\""))
      << bad.output;

  auto deleted = kubectl("delete logprofile my-trainer-logs");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(contains(kubectl("get logprofiles").output, "No resources found"));
}

TEST_F(KubectlMeasurementKinds, MeasurementStatusGoesThroughTheSubresource) {
  create_examples();
  const std::string status =
      R"('{"status":{"results":[{"sizeBytes":1048576,"algBW":"10.50","busBW":"19.69","samples":3}],"transport":["IB"],"conditions":[{"type":"Measuring","status":"True","reason":"JobRunning","message":"","lastTransitionTime":"2026-03-02T09:00:40Z"}]}}')";
  auto patched = kubectl(
      "patch bandwidthmeasurement ar-job-bandwidth -n gpu-validation --subresource=status "
      "--type=merge -p " +
      status);
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  auto object =
      parse_json(kubectl("get bandwidthmeasurement ar-job-bandwidth -n gpu-validation -o json"));
  EXPECT_EQ(object.at("status").at("results").at(0).at("busBW"), "19.69");
  EXPECT_EQ(object.at("status").at("transport").at(0), "IB");
  EXPECT_EQ(object.at("metadata").at("generation"), 1);

  auto bad = kubectl(
      "patch goodputmeasurement train-job-goodput -n gpu-validation --subresource=status "
      "--type=merge -p '{\"status\":{\"currentStep\":\"ten\"}}'");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(contains(bad.output, "status.currentStep")) << bad.output;

  auto empty_ref = kubectl(
      "patch goodputmeasurement train-job-goodput -n gpu-validation --type=merge "
      "-p '{\"spec\":{\"logProfileRef\":\"\"}}'");
  EXPECT_NE(empty_ref.exit_code, 0);
  EXPECT_TRUE(contains(empty_ref.output, "spec.logProfileRef in body should be at least 1 chars"))
      << empty_ref.output;
}

}  // namespace
}  // namespace nvcre::sim::testing
