// kube-sim's garbage collection, fault plan and stats, driven over HTTP by kubectl and curl.
#include "kubectl_support.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <fstream>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

json::value parse(const std::string& text) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  EXPECT_FALSE(ec) << text;
  return value;
}

class KubeSimFaults : public KubectlTest {
 protected:
  void SetUp() override {
    KubectlTest::SetUp();
    create_crds();
    create_namespace("gpu-validation");
  }

  CommandResult curl(const std::string& args) const {
    return run_shell("timeout 20 curl -s " + args);
  }

  void put_faults(const std::string& plan) const {
    std::ofstream(dir_ / "plan.yaml") << plan;
    auto result = curl("-X PUT --data-binary @" + (dir_ / "plan.yaml").string() + " " +
                       sim_->url() + "/sim/faults");
    ASSERT_TRUE(contains(result.output, "\"plan\"")) << result.output;
  }
  json::value faults() const { return parse(curl(sim_->url() + "/sim/faults").output); }
  json::value stats() const { return parse(curl(sim_->url() + "/sim/stats").output); }

  std::string uid(const std::string& what) const {
    auto result = kubectl("get " + what + " -n gpu-validation -o jsonpath={.metadata.uid}");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return result.output;
  }

  void apply(const std::string& example) const {
    auto result = kubectl("apply -f " + source(example));
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }

  // Sets metadata.ownerReferences of `what` to one reference to the given owner.
  void own(const std::string& what, const std::string& api_version, const std::string& kind,
           const std::string& name, const std::string& owner_uid, bool block = false) const {
    json::value patch = json::object{
        {"metadata", json::object{{"ownerReferences",
                                   json::array{json::object{{"apiVersion", api_version},
                                                            {"kind", kind},
                                                            {"name", name},
                                                            {"uid", owner_uid},
                                                            {"blockOwnerDeletion", block}}}}}}};
    auto result = kubectl("patch " + what + " -n gpu-validation --type=merge -p '" +
                          json::serialize(patch) + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }

  // `kubectl create -f -` (YAML -> JSON); `kubectl create configmap` would send protobuf.
  CommandResult try_configmap(const std::string& name, const std::string& extra_metadata = {},
                              const std::string& ns = "gpu-validation") const {
    return kubectl_stdin("create -f -",
                         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
                             "\n  namespace: " + ns + "\n" + extra_metadata + "data:\n  k: v\n");
  }
  void configmap(const std::string& name, const std::string& extra_metadata = {},
                 const std::string& ns = "gpu-validation") const {
    auto result = try_configmap(name, extra_metadata, ns);
    ASSERT_EQ(result.exit_code, 0) << result.output;
  }

  bool gone(const std::string& what) const {
    return contains(kubectl("get " + what + " -n gpu-validation").output, "not found");
  }
};

// ---- garbage collection ----

TEST_F(KubeSimFaults, DeletingACertificationDeletesItsChainInTheBackground) {
  apply("examples/certification.yaml");
  apply("examples/workflow.yaml");
  apply("examples/job.yaml");
  own("workflow demo-comm-allreduce", "nvcre.nvidia.com/v1alpha1", "Certification", "rack7-burnin",
      uid("certification rack7-burnin"));
  own("nvjob demo-comm-allreduce-job", "nvcre.nvidia.com/v1alpha1", "Workflow",
      "demo-comm-allreduce", uid("workflow demo-comm-allreduce"));
  configmap("job-output",
            "  ownerReferences:\n  - {apiVersion: nvcre.nvidia.com/v1alpha1, kind: Job, name: "
            "demo-comm-allreduce-job, uid: " +
                uid("nvjob demo-comm-allreduce-job") + "}\n");
  configmap("bystander");

  auto deleted = kubectl("delete certification rack7-burnin -n gpu-validation");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(gone("workflow demo-comm-allreduce"));
  EXPECT_TRUE(gone("nvjob demo-comm-allreduce-job"));
  EXPECT_TRUE(gone("cm job-output"));
  EXPECT_FALSE(gone("cm bystander"));
}

TEST_F(KubeSimFaults, ForegroundDeletionWaitsForBlockingDependents) {
  configmap("parent");
  configmap(
      "child",
      "  finalizers: [example.com/hold]\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, "
      "name: parent, uid: " +
          uid("cm parent") + ", blockOwnerDeletion: true}\n");
  auto deleted = kubectl("delete cm parent -n gpu-validation --cascade=foreground --wait=false");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  auto parent = parse(kubectl("get cm parent -n gpu-validation -o json").output);
  EXPECT_TRUE(parent.at("metadata").as_object().contains("deletionTimestamp"));
  EXPECT_EQ(parent.at("metadata").at("finalizers"), (json::array{"foregroundDeletion"}));
  auto child = parse(kubectl("get cm child -n gpu-validation -o json").output);
  EXPECT_TRUE(child.at("metadata").as_object().contains("deletionTimestamp"));  // deleted first

  auto released = kubectl(
      "patch cm child -n gpu-validation --type=json "
      "-p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'");
  ASSERT_EQ(released.exit_code, 0) << released.output;
  EXPECT_TRUE(gone("cm child"));
  EXPECT_TRUE(gone("cm parent"));  // then the owner
}

// The collection after a finalizer patch: releasing a terminating owner's last finalizer removes
// it, and its background dependents are gone by the time the patch returns (adding a finalizer to a
// live object, which cannot leave garbage, does not collect).
TEST_F(KubeSimFaults, ReleasingATerminatingOwnersLastFinalizerCollectsItsDependents) {
  configmap("owner", "  finalizers: [example.com/hold]\n");
  configmap("dependent",
            "  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: " +
                uid("cm owner") + "}\n");
  ASSERT_EQ(kubectl("patch cm dependent -n gpu-validation --type=merge -p "
                    "'{\"metadata\":{\"finalizers\":[\"example.com/keep\"]}}'")
                .exit_code,
            0);
  auto deleted = kubectl("delete cm owner -n gpu-validation --wait=false");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_FALSE(gone("cm owner"));      // held by its finalizer
  EXPECT_FALSE(gone("cm dependent"));  // a terminating owner is still an owner
  auto released = kubectl(
      "patch cm owner -n gpu-validation --type=json "
      "-p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'");
  ASSERT_EQ(released.exit_code, 0) << released.output;
  EXPECT_TRUE(gone("cm owner"));
  auto dependent = parse(kubectl("get cm dependent -n gpu-validation -o json").output);
  EXPECT_TRUE(dependent.at("metadata")
                  .as_object()
                  .contains("deletionTimestamp"));  // held by its own finalizer
}

TEST_F(KubeSimFaults, OrphanDeletionKeepsDependents) {
  configmap("parent");
  configmap("child",
            "  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: parent, uid: " +
                uid("cm parent") + "}\n");
  auto deleted = kubectl("delete cm parent -n gpu-validation --cascade=orphan");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.output;
  EXPECT_TRUE(gone("cm parent"));
  auto child = parse(kubectl("get cm child -n gpu-validation -o json").output);
  EXPECT_FALSE(child.at("metadata").as_object().contains("ownerReferences"));
}

TEST_F(KubeSimFaults, DeletingANamespaceDeletesItsObjects) {
  create_namespace("scratch");
  configmap("tmp", {}, "scratch");
  ASSERT_EQ(kubectl("delete namespace scratch --wait=false").exit_code, 0);
  auto left = kubectl("get --raw /api/v1/configmaps");
  EXPECT_FALSE(contains(left.output, "\"name\":\"tmp\"")) << left.output;
}

// ---- fault plan ----

TEST_F(KubeSimFaults, AlwaysFailingCreateFailsKubectlAndIsCounted) {
  put_faults("seed: 1\nverbs:\n  create:\n    errors: [{code: 503, rate: 1.0}]\n");
  auto created = try_configmap("doomed");
  EXPECT_NE(created.exit_code, 0);
  EXPECT_TRUE(contains(created.output, "ServiceUnavailable")) << created.output;
  EXPECT_TRUE(contains(created.output, "kube-sim fault injection: create configmaps"))
      << created.output;
  EXPECT_TRUE(gone("cm doomed"));  // reads are not affected
  auto report = faults();
  EXPECT_GE(report.at("counters").at("ServiceUnavailable").at("create").to_number<int>(), 1)
      << report;
  EXPECT_EQ(report.at("plan").at("verbs").at("create").at("errors").at(0).at("code"), 503);

  // Turning the plan off lets the create through.
  auto off = curl("-X DELETE " + sim_->url() + "/sim/faults");
  EXPECT_TRUE(contains(off.output, "\"total\":0")) << off.output;
  EXPECT_EQ(try_configmap("doomed").exit_code, 0);
}

TEST_F(KubeSimFaults, TooManyRequestsCarriesRetryAfter) {
  put_faults(
      R"({"seed": 2, "verbs": {"list": {"errors": [{"code": 429, "rate": 1, "retryAfterSeconds": 2}]}}})");
  auto result = curl("-i " + sim_->url() + "/api/v1/namespaces/gpu-validation/configmaps");
  EXPECT_TRUE(contains(result.output, "HTTP/1.1 429")) << result.output;
  EXPECT_TRUE(contains(result.output, "Retry-After: 2")) << result.output;
  EXPECT_TRUE(contains(result.output, "\"reason\":\"TooManyRequests\"")) << result.output;
  EXPECT_TRUE(contains(result.output, "\"retryAfterSeconds\":2")) << result.output;
  EXPECT_EQ(faults().at("counters").at("TooManyRequests").at("list"), 1);
}

TEST_F(KubeSimFaults, ForcedGoneOnWatchStart) {
  put_faults("seed: 3\nverbs:\n  watch: {forceGoneRate: 1}\n");
  auto result =
      kubectl("get --raw '/api/v1/namespaces/gpu-validation/configmaps?watch=1&timeoutSeconds=2'");
  EXPECT_TRUE(contains(result.output, "\"type\":\"ERROR\"")) << result.output;
  EXPECT_TRUE(contains(result.output, "\"code\":410")) << result.output;
  EXPECT_TRUE(contains(result.output, "\"reason\":\"Expired\"")) << result.output;
  EXPECT_EQ(faults().at("counters").at("WatchGone").at("watch"), 1);
}

TEST_F(KubeSimFaults, WatchIsDroppedAfterTheConfiguredTime) {
  put_faults("seed: 4\nverbs:\n  watch: {dropEverySeconds: 1}\n");
  const auto start = std::chrono::steady_clock::now();
  auto result = curl("-N " + sim_->url() +
                     "/api/v1/namespaces/gpu-validation/configmaps?watch=1&timeoutSeconds=15");
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::seconds(8));
  // The connection is cut without the terminating chunk (curl may or may not report it as an
  // error).
  EXPECT_EQ(faults().at("counters").at("WatchDrop").at("watch"), 1);
}

TEST_F(KubeSimFaults, BadPlanIsRejected) {
  std::ofstream(dir_ / "bad.yaml") << "verbs: {create: {errors: [{code: 302, rate: 1}]}}\n";
  auto result = curl("-X PUT --data-binary @" + (dir_ / "bad.yaml").string() + " " + sim_->url() +
                     "/sim/faults");
  EXPECT_TRUE(contains(result.output, "\"code\":400")) << result.output;
  EXPECT_TRUE(contains(result.output, "must be a 4xx or 5xx code")) << result.output;
}

// ---- stats ----

TEST_F(KubeSimFaults, StatsCountRequestsAndCreatesPerName) {
  configmap("twice");
  auto again = try_configmap("twice");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_TRUE(contains(again.output, "already exists")) << again.output;
  configmap("once");

  auto s = stats();
  EXPECT_GE(s.at("requests").at("create").at("201").to_number<int>(), 2) << s;
  EXPECT_GE(s.at("requests").at("create").at("409").to_number<int>(), 1) << s;
  const auto& duplicates = s.at("duplicateCreates").as_array();
  ASSERT_EQ(duplicates.size(), 1u) << s;
  EXPECT_EQ(duplicates[0].at("resource"), "configmaps");
  EXPECT_EQ(duplicates[0].at("namespace"), "gpu-validation");
  EXPECT_EQ(duplicates[0].at("name"), "twice");
  EXPECT_EQ(duplicates[0].at("attempts"), 2);
  EXPECT_EQ(duplicates[0].at("created"), 1);
  bool logged = false;
  for (const auto& entry : s.at("log").as_array())
    logged = logged || (entry.at("method") == "POST" && entry.at("code") == 409);
  EXPECT_TRUE(logged) << s;
}

TEST_F(KubeSimFaults, InjectedLatencyShowsInTheLog) {
  put_faults("seed: 5\nverbs:\n  get: {latency: {fixedMs: 300, jitterMs: 0}}\n");
  const auto start = std::chrono::steady_clock::now();
  auto result = curl(sim_->url() + "/api/v1/namespaces/default");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  EXPECT_TRUE(contains(result.output, "\"name\":\"default\"")) << result.output;
  auto log = stats().at("log").as_array();
  ASSERT_FALSE(log.empty());
  EXPECT_GE(log.back().at("latencyMs").to_number<double>(), 300.0);
  EXPECT_EQ(faults().at("counters").at("Latency").at("get"), 1);
}

}  // namespace
}  // namespace nvcre::sim::testing
