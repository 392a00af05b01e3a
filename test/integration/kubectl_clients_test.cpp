// The real kubectl's everyday commands against kube-sim: `create namespace|configmap|secret
// generic` (whose bodies kubectl sends as protobuf), cordon / uncordon, label, annotate, the
// built-in kinds a Kubeflow Trainer cluster has (batch/v1 Job, PersistentVolume(Claim),
// ResourceSlice), and boolean query parameters spelled as other clients spell them.
#include "kubectl_support.hpp"

#include "sim/cluster_profile.hpp"

#include <boost/json.hpp>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

class KubectlClients : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override {
    options.api.cluster = parse_cluster_profile("aws:h100:2");
  }

  std::string ok(const std::string& args) const {
    auto result = kubectl(args);
    EXPECT_EQ(result.exit_code, 0) << "kubectl " << args << "\n" << result.output;
    return result.output;
  }
};

TEST_F(KubectlClients, CreateNamespaceConfigMapAndSecretSentAsProtobuf) {
  EXPECT_EQ(ok("create namespace team-a"), "namespace/team-a created\n");
  EXPECT_EQ(ok("get namespace team-a -o jsonpath={.status.phase}"), "Active");
  EXPECT_EQ(ok("get namespace team-a -o jsonpath={.spec.finalizers}"), R"(["kubernetes"])");
  auto again = kubectl("create namespace team-a");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_TRUE(contains(again.output, R"(namespaces "team-a" already exists)")) << again.output;

  EXPECT_EQ(ok("create configmap settings -n team-a --from-literal=mode=fast "
               "--from-literal=level=3"),
            "configmap/settings created\n");
  auto map = parse_json(kubectl("get configmap settings -n team-a -o json"));
  EXPECT_EQ(map.at("data"), (json::object{{"mode", "fast"}, {"level", "3"}}));
  EXPECT_EQ(map.at("metadata").at("namespace"), "team-a");

  EXPECT_EQ(ok("create secret generic db -n team-a --from-literal=password=hunter2 "
               "--type=example.com/db"),
            "secret/db created\n");
  auto secret = parse_json(kubectl("get secret db -n team-a -o json"));
  EXPECT_EQ(secret.at("data").at("password"), "aHVudGVyMg==");  // base64("hunter2")
  EXPECT_EQ(secret.at("type"), "example.com/db");

  // A protobuf body lands exactly as the JSON one would: labels included, server-side dry run kept.
  EXPECT_EQ(ok("create namespace team-b --dry-run=server"),
            "namespace/team-b created (server dry run)\n");
  EXPECT_NE(kubectl("get namespace team-b").exit_code, 0);
}

TEST_F(KubectlClients, CordonAndUncordonANode) {
  EXPECT_EQ(ok("cordon gpu-node-00"), "node/gpu-node-00 cordoned\n");
  EXPECT_EQ(ok("get node gpu-node-00 -o jsonpath={.spec.unschedulable}"), "true");
  EXPECT_TRUE(contains(ok("get node gpu-node-00"), "Ready,SchedulingDisabled"));
  EXPECT_EQ(ok("cordon gpu-node-00"), "node/gpu-node-00 already cordoned\n");
  EXPECT_EQ(ok("uncordon gpu-node-00"), "node/gpu-node-00 uncordoned\n");
  EXPECT_EQ(ok("get node gpu-node-00 -o jsonpath={.spec.unschedulable}"), "");
  EXPECT_FALSE(contains(ok("get node gpu-node-00"), "SchedulingDisabled"));
}

TEST_F(KubectlClients, LabelAndAnnotate) {
  ok("create configmap tuning -n default --from-literal=a=b");
  EXPECT_EQ(ok("label configmap tuning -n default tier=gold"), "configmap/tuning labeled\n");
  EXPECT_EQ(ok("get configmaps -n default -l tier=gold -o name"), "configmap/tuning\n");
  auto clash = kubectl("label configmap tuning -n default tier=silver");
  EXPECT_NE(clash.exit_code, 0);
  EXPECT_TRUE(contains(clash.output, "already has a value (gold)")) << clash.output;
  ok("label configmap tuning -n default tier=silver --overwrite");
  EXPECT_EQ(ok("get configmap tuning -n default -o jsonpath={.metadata.labels.tier}"), "silver");
  ok("label configmap tuning -n default tier-");
  EXPECT_EQ(ok("get configmap tuning -n default -o jsonpath={.metadata.labels.tier}"), "");

  EXPECT_EQ(ok("annotate node gpu-node-01 example.com/owner=infra"),
            "node/gpu-node-01 annotated\n");
  EXPECT_EQ(ok("get node gpu-node-01 -o 'jsonpath={.metadata.annotations.example\\.com/owner}'"),
            "infra");
  ok("label node gpu-node-01 pool=burnin");
  EXPECT_EQ(ok("get nodes -l pool=burnin -o name"), "node/gpu-node-01\n");
}

TEST_F(KubectlClients, BuiltInKindsOfATrainerClusterAreServed) {
  auto resources = ok("api-resources -o name");
  for (const char* name : {"jobs.batch", "persistentvolumes", "persistentvolumeclaims",
                           "resourceslices.resource.k8s.io", "events.events.k8s.io"})
    EXPECT_TRUE(contains(resources, std::string(name) + "\n")) << name << "\n" << resources;
  auto created = kubectl_stdin("create -f -", R"(apiVersion: batch/v1
kind: Job
metadata: {name: collect, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: collect, image: busybox}]
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: scratch}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath: {path: /tmp}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 10Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: gpu-node-00-gpu.nvidia.com}
spec:
  driver: gpu.nvidia.com
  nodeName: gpu-node-00
  pool: {name: gpu-node-00, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0, attributes: {productName: {string: NVIDIA H100 80GB HBM3}}}]
)");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  EXPECT_EQ(ok("get jobs -n default -o name"), "job.batch/collect\n");
  auto volumes = ok("get pv");
  EXPECT_TRUE(contains(volumes, "CAPACITY")) << volumes;
  EXPECT_TRUE(contains(volumes, "scratch   10Gi       RWO            Retain")) << volumes;
  auto claims = ok("get pvc -n default");
  EXPECT_TRUE(contains(claims, "data")) << claims;
  auto slices = ok("get resourceslices");
  EXPECT_TRUE(contains(slices, "NODE")) << slices;
  EXPECT_TRUE(contains(slices, "gpu-node-00   gpu.nvidia.com   gpu-node-00")) << slices;
  EXPECT_EQ(ok("get resourceslices -o jsonpath={.items[0].spec.devices[0].name}"), "gpu-0");
  ok("delete job collect -n default");
  EXPECT_TRUE(contains(kubectl("get jobs -n default").output, "No resources found"));
}

TEST_F(KubectlClients, BooleanQueryParametersAreReadAsTheApiServerReadsThem) {
  // watch=True (the Python client's spelling) is a watch: ADDED events, not a NamespaceList.
  for (const char* spelling : {"True", "TRUE", "t", "1", "yes"}) {
    auto watched = kubectl(std::string("get --raw '/api/v1/namespaces?watch=") + spelling +
                           "&timeoutSeconds=1'");
    EXPECT_EQ(watched.exit_code, 0) << spelling << ": " << watched.output;
    EXPECT_TRUE(contains(watched.output, R"({"type":"ADDED","object":{)")) << spelling;
    EXPECT_FALSE(contains(watched.output, "NamespaceList")) << spelling;
  }
  for (const char* spelling : {"False", "false", "0"}) {
    auto listed = kubectl(std::string("get --raw '/api/v1/namespaces?watch=") + spelling + "'");
    EXPECT_TRUE(contains(listed.output, R"("kind":"NamespaceList")")) << spelling;
  }
  // sendInitialEvents: the current state, then a bookmark marking its end.
  auto initial = kubectl(
      "get --raw '/api/v1/namespaces?watch=True&sendInitialEvents=True&allowWatchBookmarks=True"
      "&resourceVersionMatch=NotOlderThan&timeoutSeconds=1'");
  EXPECT_TRUE(contains(initial.output, R"("name":"kube-system")")) << initial.output;
  EXPECT_TRUE(contains(initial.output, R"({"k8s.io/initial-events-end":"true"})"))
      << initial.output;
}

}  // namespace
}  // namespace nvcre::sim::testing
