// The real kubectl against kube-sim: CRDs from deploy/crds, discovery, apply/get/list/watch/
// patch (incl. --subresource=status)/delete, validation failures, conflicts, finalizers, 410.
#include "kubectl_support.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <thread>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

class KubeSimKubectl : public KubectlTest {
 protected:
  void SetUp() override {
    KubectlTest::SetUp();
    create_crds();
    create_namespace("gpu-validation");
  }

  void apply_certification() const {
    auto result = kubectl("apply -f " + source("examples/certification.yaml"));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_TRUE(contains(result.output, "certification.nvcre.nvidia.com/rack7-burnin created"))
        << result.output;
  }
};

TEST_F(KubeSimKubectl, ApiResourcesListsOurKinds) {
  auto result = kubectl("api-resources --api-group=nvcre.nvidia.com -o name");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* name : {"certifications.nvcre.nvidia.com", "workloadruns.nvcre.nvidia.com",
                           "workflows.nvcre.nvidia.com", "jobs.nvcre.nvidia.com"})
    EXPECT_TRUE(contains(result.output, name)) << result.output;
  auto wide = kubectl("api-resources --api-group=nvcre.nvidia.com");
  EXPECT_TRUE(contains(wide.output, "nvjob")) << wide.output;
  EXPECT_FALSE(contains(wide.output, "cert,certs")) << wide.output;
  auto crds = kubectl("get crd -o name");
  EXPECT_TRUE(contains(
      crds.output, "customresourcedefinition.apiextensions.k8s.io/trainjobs.trainer.kubeflow.org"))
      << crds.output;
}

TEST_F(KubeSimKubectl, CreatingTheCrdsTwiceAnswersAlreadyExists) {
  auto result = kubectl("create -f " + source("deploy/crds/nvcre.nvidia.com_jobs.yaml"));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(contains(
      result.output,
      "customresourcedefinitions.apiextensions.k8s.io \"jobs.nvcre.nvidia.com\" already exists"))
      << result.output;
}

TEST_F(KubeSimKubectl, ApplyGetAndList) {
  apply_certification();
  auto got = kubectl("get certification rack7-burnin -n gpu-validation -o json");
  ASSERT_EQ(got.exit_code, 0) << got.output;
  auto object = parse_json(got);
  EXPECT_EQ(object.at("metadata").at("generation"), 1);
  EXPECT_EQ(object.at("metadata").at("uid").as_string().size(), 36u);
  EXPECT_EQ(object.at("spec").at("testScale"), "intra-rack");

  // No short name: cert/certs belong to cert-manager. The nvcre category lists every kind of ours.
  auto category = kubectl("get nvcre -n gpu-validation -o name");
  EXPECT_EQ(category.exit_code, 0) << category.output;
  EXPECT_TRUE(contains(category.output, "certification.nvcre.nvidia.com/rack7-burnin"))
      << category.output;
  auto short_name = kubectl("get cert -n gpu-validation");
  EXPECT_NE(short_name.exit_code, 0) << short_name.output;

  auto matching = kubectl("get certifications -A -l team=infra -o name");
  EXPECT_TRUE(contains(matching.output, "certification.nvcre.nvidia.com/rack7-burnin"))
      << matching.output;
  auto other = kubectl("get certifications -A -l team=other");
  EXPECT_TRUE(contains(other.output, "No resources found")) << other.output;

  // Applying again without changes keeps the object (and its resourceVersion).
  auto again = kubectl("apply -f " + source("examples/certification.yaml"));
  EXPECT_TRUE(contains(again.output, "unchanged")) << again.output;
}

// kube-sim answers as kube-apiserver 1.35 does, and says so: a failed CEL rule shows a scalar
// value itself and no value at all for an object.
TEST_F(KubeSimKubectl, ServesTheImitatedVersionAndItsCelMessages) {
  // kubectl 1.32 also warns on stderr that 1.35 is beyond its supported skew; the JSON is on
  // stdout.
  auto version = kubectl("version -o json");
  EXPECT_TRUE(contains(version.output, "\"gitVersion\": \"v1.35.0-kube-sim\"")) << version.output;
  EXPECT_TRUE(contains(version.output, "\"minor\": \"35\"")) << version.output;

  auto scalar = kubectl("create -f " + source("test/testdata/validation/"
                                              "certification-resources-negative-memory-request-"
                                              "without-limit/input.yaml"));
  EXPECT_TRUE(contains(scalar.output,
                       "spec.resources.requests.memory: Invalid value: \"-1Gi\": memory must be a "
                       "non-negative quantity"))
      << scalar.output;
  auto object = kubectl("create -f " + source("test/testdata/validation/"
                                              "certification-resources-cpu-request-exceeds-limit/"
                                              "input.yaml"));
  EXPECT_TRUE(contains(object.output,
                       "spec.categories[0].options.resources: Invalid value: "
                       "requests.cpu must not exceed limits.cpu"))
      << object.output;
}

TEST_F(KubeSimKubectl, InvalidObjectIsRejectedWithTheValidatorsCauses) {
  auto result = kubectl("apply -f " + source("examples/invalid/certification-invalid.yaml"));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(contains(result.output, "The Certification \"broken-burnin\" is invalid"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "spec.testScale: Unsupported value: \"rack\""))
      << result.output;
  EXPECT_TRUE(
      contains(result.output, "spec.categories[0].options.maxBytes: Invalid value: \"16X\""))
      << result.output;
  auto get = kubectl("get certification broken-burnin -n gpu-validation");
  EXPECT_TRUE(contains(get.output, "certifications.nvcre.nvidia.com \"broken-burnin\" not found"))
      << get.output;
}

// kubectl --validate=false sends fieldValidation=Ignore: unknown fields are pruned, not stored, and
// what remains is validated as ever (strict kubectl refuses the same manifest outright).
TEST_F(KubeSimKubectl, UnknownFieldsArePrunedWithoutStrictValidationAndTheRestValidated) {
  const std::string manifest = R"(apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: pruned, namespace: default}
spec:
  placement: Unpinned
  target:
    nodeSelector: {nvidia.com/gpu.present: "true"}
  categories:
    - domain: communication
      variant: nccl-all-reduce
      options: {nodesPerJob: 2, bogus: 1}
)";
  auto strict = kubectl_stdin("create -f -", manifest);
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_TRUE(contains(strict.output, "strict decoding error")) << strict.output;
  auto created = kubectl_stdin("create --validate=false -f -", manifest);
  ASSERT_EQ(created.exit_code, 0) << created.output;
  auto spec = kubectl("get certification pruned -n default -o jsonpath={.spec}");
  EXPECT_FALSE(contains(spec.output, "placement")) << spec.output;
  EXPECT_FALSE(contains(spec.output, "bogus")) << spec.output;
  EXPECT_TRUE(contains(spec.output, "\"nodesPerJob\":2")) << spec.output;
  kubectl("delete certification pruned -n default --wait=false");
  std::string invalid = manifest;
  invalid.replace(invalid.find("nodesPerJob: 2"), 14, "nodesPerJob: -3");
  auto refused = kubectl_stdin("create --validate=false -f -", invalid);
  EXPECT_NE(refused.exit_code, 0) << "pruning must not skip validation";
  EXPECT_TRUE(contains(refused.output, "nodesPerJob")) << refused.output;
}

TEST_F(KubeSimKubectl, MergeAndJsonPatchOnJobSpec) {
  auto applied = kubectl("apply -f " + source("examples/job.yaml"));
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  auto patched = kubectl(
      "patch nvjob demo-comm-allreduce-job -n gpu-validation --type=merge -p "
      "'{\"spec\":{\"stallMultiplier\":3}}'");
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  auto json_patched = kubectl(
      "patch nvjob demo-comm-allreduce-job -n gpu-validation --type=json "
      "-p '[{\"op\":\"add\",\"path\":\"/metadata/labels/stage\",\"value\":\"two\"}]'");
  ASSERT_EQ(json_patched.exit_code, 0) << json_patched.output;
  auto object = parse_json(kubectl("get nvjob demo-comm-allreduce-job -n gpu-validation -o json"));
  EXPECT_EQ(object.at("spec").at("stallMultiplier"), 3);
  EXPECT_EQ(object.at("metadata").at("labels").at("stage"), "two");
  EXPECT_EQ(object.at("metadata").at("generation"), 2);  // the label did not bump it
  auto by_label = kubectl("get nvjob -n gpu-validation -l stage=two -o name");
  EXPECT_TRUE(contains(by_label.output, "job.nvcre.nvidia.com/demo-comm-allreduce-job"))
      << by_label.output;
}

TEST_F(KubeSimKubectl, WorkflowApplyAndPatch) {
  auto applied = kubectl("apply -f " + source("examples/workflow.yaml"));
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  auto patched = kubectl(
      "patch workflow demo-comm-allreduce -n gpu-validation --type=merge "
      "-p '{\"metadata\":{\"annotations\":{\"note\":\"x\"}}}'");
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  auto object = parse_json(kubectl("get workflow demo-comm-allreduce -n gpu-validation -o json"));
  EXPECT_EQ(object.at("metadata").at("annotations").at("note"), "x");
}

TEST_F(KubeSimKubectl, StatusSubresource) {
  apply_certification();
  const std::string status =
      R"('{"status":{"conditions":[{"type":"Running","status":"True","reason":"Started","message":"running","lastTransitionTime":"2025-01-01T00:00:00Z"}]}}')";
  auto patched = kubectl(
      "patch certification rack7-burnin -n gpu-validation --subresource=status --type=merge -p " +
      status);
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  auto object = parse_json(kubectl("get certification rack7-burnin -n gpu-validation -o json"));
  EXPECT_EQ(object.at("status").at("conditions").at(0).at("type"), "Running");
  EXPECT_EQ(object.at("metadata").at("generation"), 1);
  // Status written through the main resource is ignored.
  kubectl("patch certification rack7-burnin -n gpu-validation --type=merge -p '{\"status\":null}'");
  object = parse_json(kubectl("get certification rack7-burnin -n gpu-validation -o json"));
  EXPECT_TRUE(object.as_object().contains("status"));
  // An invalid status is rejected by the status validation.
  auto bad = kubectl(
      "patch certification rack7-burnin -n gpu-validation --subresource=status --type=merge "
      "-p '{\"status\":{\"conditions\":[{\"type\":\"Running\"}]}}'");
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_TRUE(contains(bad.output, "is invalid")) << bad.output;
}

TEST_F(KubeSimKubectl, CertificationSpecIsImmutable) {
  apply_certification();
  auto result = kubectl(
      "patch certification rack7-burnin -n gpu-validation --type=merge -p "
      "'{\"spec\":{\"testScale\":\"full-scale\"}}'");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(contains(result.output, "spec is immutable after creation")) << result.output;
}

TEST_F(KubeSimKubectl, StaleReplaceConflicts) {
  apply_certification();
  auto object = parse_json(kubectl("get certification rack7-burnin -n gpu-validation -o json"));
  ASSERT_EQ(kubectl("label certification rack7-burnin -n gpu-validation extra=1").exit_code, 0);
  auto result = kubectl_stdin("replace -f -", json::serialize(object));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(contains(result.output,
                       "Operation cannot be fulfilled on certifications.nvcre.nvidia.com "
                       "\"rack7-burnin\": the object has been modified"))
      << result.output;
}

TEST_F(KubeSimKubectl, WatchSeesAnUpdate) {
  apply_certification();
  const auto out = (dir_ / "watch.out").string();
  std::thread watcher([&] {
    run_shell("timeout 8 " + kubectl_prefix() +
              " get certifications -n gpu-validation --watch --output-watch-events > " + out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  auto labeled = kubectl("label certification rack7-burnin -n gpu-validation phase=two");
  EXPECT_EQ(labeled.exit_code, 0) << labeled.output;
  watcher.join();
  auto text = run_shell("cat " + out).output;
  EXPECT_TRUE(contains(text, "ADDED")) << text;
  EXPECT_TRUE(contains(text, "MODIFIED")) << text;
}

TEST_F(KubeSimKubectl, DeleteAndFinalizers) {
  apply_certification();
  auto deleted = kubectl("delete certification rack7-burnin -n gpu-validation");
  EXPECT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(contains(deleted.output, "deleted")) << deleted.output;
  EXPECT_TRUE(
      contains(kubectl("get certifications -n gpu-validation").output, "No resources found"));

  // With a finalizer the object stays, marked, until the finalizer goes.
  auto job = kubectl("apply -f " + source("examples/job.yaml"));
  ASSERT_EQ(job.exit_code, 0) << job.output;
  ASSERT_EQ(kubectl("patch nvjob demo-comm-allreduce-job -n gpu-validation --type=merge "
                    "-p '{\"metadata\":{\"finalizers\":[\"nvcre.nvidia.com/cleanup\"]}}'")
                .exit_code,
            0);
  auto marked = kubectl("delete nvjob demo-comm-allreduce-job -n gpu-validation --wait=false");
  EXPECT_EQ(marked.exit_code, 0) << marked.output;
  auto object = parse_json(kubectl("get nvjob demo-comm-allreduce-job -n gpu-validation -o json"));
  EXPECT_TRUE(object.at("metadata").as_object().contains("deletionTimestamp"));
  auto removed = kubectl(
      "patch nvjob demo-comm-allreduce-job -n gpu-validation --type=json "
      "-p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'");
  EXPECT_EQ(removed.exit_code, 0) << removed.output;
  auto gone = kubectl("get nvjob demo-comm-allreduce-job -n gpu-validation");
  EXPECT_TRUE(contains(gone.output, "jobs.nvcre.nvidia.com \"demo-comm-allreduce-job\" not found"))
      << gone.output;
}

TEST_F(KubeSimKubectl, ServerSideDryRunStoresNothing) {
  auto result = kubectl("apply --dry-run=server -f " + source("examples/certification.yaml"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(contains(result.output, "(server dry run)")) << result.output;
  EXPECT_TRUE(
      contains(kubectl("get certifications -n gpu-validation").output, "No resources found"));
}

TEST_F(KubeSimKubectl, PaginationAndFieldSelector) {
  for (int i = 0; i < 5; ++i) {
    auto r = kubectl_stdin(
        "create -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" +
                           std::to_string(i) + "\n  namespace: gpu-validation\ndata:\n  k: v\n");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  auto all = kubectl("get cm -n gpu-validation --chunk-size=2 -o name");
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(contains(all.output, "configmap/cm-" + std::to_string(i))) << all.output;
  auto one = kubectl("get cm -n gpu-validation --field-selector metadata.name=cm-3 -o name");
  EXPECT_EQ(one.output, "configmap/cm-3\n");
  auto page =
      parse_json(kubectl("get --raw '/api/v1/namespaces/gpu-validation/configmaps?limit=2'"));
  EXPECT_EQ(page.at("items").as_array().size(), 2u);
  EXPECT_EQ(page.at("metadata").at("remainingItemCount"), 3);
}

TEST_F(KubeSimKubectl, WatchFromCompactedResourceVersionIsGone) {
  apply_certification();
  sim_->api().store().compact();
  auto result = kubectl(
      "get --raw "
      "'/apis/nvcre.nvidia.com/v1alpha1/"
      "certifications?watch=1&resourceVersion=1&timeoutSeconds=2'");
  EXPECT_TRUE(contains(result.output, "\"type\":\"ERROR\"")) << result.output;
  EXPECT_TRUE(contains(result.output, "\"code\":410")) << result.output;
  EXPECT_TRUE(contains(result.output, "too old resource version")) << result.output;
}

TEST_F(KubeSimKubectl, WatchReplaysTheWindowAndSendsBookmarks) {
  apply_certification();
  auto result = kubectl(
      "get --raw '/apis/nvcre.nvidia.com/v1alpha1/namespaces/gpu-validation/certifications"
      "?watch=1&resourceVersion=1&allowWatchBookmarks=true&timeoutSeconds=2'");
  EXPECT_TRUE(contains(result.output, "{\"type\":\"ADDED\",\"object\":{")) << result.output;
  EXPECT_TRUE(contains(result.output, "\"type\":\"BOOKMARK\"")) << result.output;
}

TEST_F(KubeSimKubectl, CrdWithAnUnevaluableRuleIsRejected) {
  const std::string crd = R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.all(k, quantity(self[k]).isGreaterThan(quantity('1')))"
            properties:
              a: {type: string}
)yaml";
  auto result = kubectl_stdin("create -f -", crd);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(
      contains(result.output, "The CustomResourceDefinition \"widgets.example.com\" is invalid"))
      << result.output;
  EXPECT_TRUE(contains(result.output, "cannot be evaluated")) << result.output;
  EXPECT_FALSE(contains(kubectl("api-resources --api-group=example.com").output, "widgets"));
}

class KubeSimToken : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override { options.token = "s3cret"; }
};

// kubectl (client-go) does not send a bearer token over plain http, so the token is checked with
// curl; kubectl only shows that the server asks for credentials.
TEST_F(KubeSimToken, BearerTokenIsRequired) {
  auto ok = run_shell("curl -s -H 'Authorization: Bearer s3cret' " + sim_->url() +
                      "/api/v1/namespaces/default");
  EXPECT_TRUE(contains(ok.output, "\"name\":\"default\"")) << ok.output;
  auto denied = run_shell("curl -s -H 'Authorization: Bearer wrong' " + sim_->url() +
                          "/api/v1/namespaces/default");
  EXPECT_TRUE(contains(denied.output, "\"reason\":\"Unauthorized\"")) << denied.output;
  EXPECT_TRUE(contains(denied.output, "\"code\":401")) << denied.output;
  auto kubectl_denied = kubectl("get ns default");
  EXPECT_NE(kubectl_denied.exit_code, 0);
  EXPECT_TRUE(contains(kubectl_denied.output, "provide credentials")) << kubectl_denied.output;
}

}  // namespace
}  // namespace nvcre::sim::testing
