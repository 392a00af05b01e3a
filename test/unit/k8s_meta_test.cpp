// Kubernetes metadata helpers: owner references, controller-of, deletion and finalizer patches.
#include "k8s/meta.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace k8s = nvcre::k8s;
using nvcre::jsonkit::parse_yaml;

const json::value kChild = parse_yaml(R"(
metadata:
  name: child
  resourceVersion: "7"
  finalizers: [example.com/audit, nvcre.nvidia.com/finalizer]
  ownerReferences:
    - {apiVersion: v1, kind: ConfigMap, name: other, uid: u-other}
    - {apiVersion: nvcre.nvidia.com/v1alpha1, kind: Workflow, name: wf, uid: u-wf, controller: true}
)");

TEST(K8sMeta, OwnerReferenceNamesTheOwnerAndAControllerBlocksItsDeletion) {
  EXPECT_EQ(json::serialize(k8s::owner_reference("v1", "ConfigMap", "cm", "u1", false)),
            R"({"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"u1"})");
  EXPECT_EQ(json::serialize(k8s::owner_reference("v1", "ConfigMap", "cm", "u1", true)),
            R"({"apiVersion":"v1","kind":"ConfigMap","name":"cm","uid":"u1",)"
            R"("controller":true,"blockOwnerDeletion":true})");
}

TEST(K8sMeta, ControllerOfIsTheReferenceMarkedControllerAndOwnersAreAnyReference) {
  const json::value* controller = k8s::controller_reference(kChild);
  ASSERT_NE(controller, nullptr);
  EXPECT_EQ(controller->at("name"), "wf");
  EXPECT_TRUE(k8s::is_controlled_by(kChild, "u-wf"));
  EXPECT_FALSE(k8s::is_controlled_by(kChild, "u-other")) << "an owner, not the controller";
  EXPECT_FALSE(k8s::is_controlled_by(kChild, ""));
  EXPECT_TRUE(k8s::has_owner(kChild, "u-other"));
  EXPECT_FALSE(k8s::has_owner(kChild, "u-none"));
  EXPECT_FALSE(k8s::has_owner(kChild, ""));
  EXPECT_EQ(k8s::controller_reference(parse_yaml("metadata: {name: x}")), nullptr);
}

TEST(K8sMeta, FinalizerPatchesKeepTheOtherFinalizersAndTheResourceVersion) {
  const k8s::ObjectRef self{"v1", "ConfigMap", "ns", "child"};
  EXPECT_TRUE(k8s::has_finalizer(kChild, "nvcre.nvidia.com/finalizer"));
  EXPECT_FALSE(k8s::is_being_deleted(kChild));
  const auto add = k8s::add_finalizer_patch(self, kChild, "x.io/new");
  EXPECT_EQ(add.verb, k8s::ActionVerb::MergePatch);
  EXPECT_EQ(json::serialize(add.body),
            R"({"metadata":{"finalizers":["example.com/audit","nvcre.nvidia.com/finalizer",)"
            R"("x.io/new"],"resourceVersion":"7"}})");
  const auto patch = k8s::remove_finalizer_patch(self, kChild, "nvcre.nvidia.com/finalizer");
  EXPECT_EQ(json::serialize(patch.body),
            R"({"metadata":{"finalizers":["example.com/audit"],"resourceVersion":"7"}})");
  const auto update = k8s::remove_finalizer_update(self, kChild, "nvcre.nvidia.com/finalizer");
  EXPECT_EQ(update.verb, k8s::ActionVerb::Update);
  EXPECT_EQ(update.body.at("metadata").at("finalizers"), json::array{"example.com/audit"});
  EXPECT_EQ(update.body.at("metadata").at("name"), "child") << "the whole object is sent";
}

TEST(K8sMeta, AChildIsCreatedWithItsControllersFinalizerOnce) {
  json::value fresh = parse_yaml("metadata: {name: x}");
  k8s::add_finalizer(fresh, "nvcre.nvidia.com/finalizer");
  k8s::add_finalizer(fresh, "nvcre.nvidia.com/finalizer");
  EXPECT_EQ(fresh.at("metadata").at("finalizers"), json::array{"nvcre.nvidia.com/finalizer"});
  json::value bare = json::object{{"kind", "Job"}};
  k8s::add_finalizer(bare, "x.io/new");
  EXPECT_EQ(bare.at("metadata").at("finalizers"), json::array{"x.io/new"});
  json::value kept = kChild;
  k8s::add_finalizer(kept, "x.io/new");
  EXPECT_EQ(kept.at("metadata").at("finalizers"),
            (json::array{"example.com/audit", "nvcre.nvidia.com/finalizer", "x.io/new"}));
}

}  // namespace
