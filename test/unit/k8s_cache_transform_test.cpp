// What the informer cache keeps: Pods and TrainJobs lose what no controller reads, every kind
// loses managedFields, and what the controllers read survives byte for byte.
#include "k8s/cache_transform.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

TEST(CacheTransform, PodKeepsMetadataWithoutAnnotationsNodeNameContainerImagesAndStatus) {
  json::value pod = json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "labels": {"nvcre.nvidia.com/job": "j"}, "annotations": {"log": "x"},
                 "managedFields": [{}], "ownerReferences": [{"uid": "u"}]},
    "spec": {"nodeName": "gpu-node-01", "volumes": [{"name": "v"}],
             "initContainers": [{"name": "init", "image": "plugin:v1.0.17", "args": ["a"]}],
             "containers": [{"name": "node", "image": "img", "env": [{"name": "E"}]}]},
    "status": {"phase": "Failed", "containerStatuses": [{"name": "node"}]}})");
  trim_for_cache(pod);
  EXPECT_EQ(pod, json::parse(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "labels": {"nvcre.nvidia.com/job": "j"}, "ownerReferences": [{"uid": "u"}]},
    "spec": {"nodeName": "gpu-node-01", "initContainers": [{"name": "init", "image": "plugin:v1.0.17"}],
             "containers": [{"name": "node", "image": "img"}]},
    "status": {"phase": "Failed", "containerStatuses": [{"name": "node"}]}})"));
}

TEST(CacheTransform, TrainJobKeepsSuspendManagedByAndStatus) {
  json::value train_job =
      json::parse(R"({"kind": "TrainJob", "metadata": {"name": "t", "annotations": {"a": "b"}},
    "spec": {"suspend": false, "managedBy": "trainer.kubeflow.org/trainjob-controller",
             "runtimeRef": {"name": "r"}, "trainer": {"numNodes": 2}},
    "status": {"conditions": [{"type": "Complete", "status": "True"}]}})");
  trim_for_cache(train_job);
  EXPECT_EQ(
      train_job,
      json::parse(R"({"kind": "TrainJob", "metadata": {"name": "t", "annotations": {"a": "b"}},
    "spec": {"suspend": false, "managedBy": "trainer.kubeflow.org/trainjob-controller"},
    "status": {"conditions": [{"type": "Complete", "status": "True"}]}})"));
}

TEST(CacheTransform, ReconciledKindsLoseOnlyManagedFields) {
  json::value workflow = json::parse(R"({"kind": "Workflow",
    "metadata": {"name": "w", "annotations": {"a": "b"}, "managedFields": [{"manager": "m"}]},
    "spec": {"jobTemplate": {"spec": {}}}, "status": {}})");
  json::value expected = workflow;
  expected.at("metadata").as_object().erase("managedFields");
  trim_for_cache(workflow);
  EXPECT_EQ(workflow, expected);
}

}  // namespace
}  // namespace nvcre::k8s
