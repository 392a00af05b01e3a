// The volumes behind a Workflow's claims: stamped with its uid before the claim goes, flipped from
// Retain to Delete only once released and only when stamped by this Workflow; and kube-sim's
// stand-in for the volume controller that provisions, binds, releases and reclaims them.
#include "sim/volume_binder.hpp"
#include "workflow/volume_reclaim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::workflow {
namespace {
namespace json = boost::json;

json::value volume(const std::string& name, const std::string& phase, const std::string& policy,
                   const std::string& stamp = "") {
  json::object metadata{{"name", name}};
  if (!stamp.empty()) metadata["annotations"] = {{"nvcre.nvidia.com/workflow-uid", stamp}};
  return json::object{{"metadata", metadata},
                      {"spec",
                       {{"persistentVolumeReclaimPolicy", policy},
                        {"claimRef", {{"namespace", "it"}, {"name", name + "-claim"}}}}},
                      {"status", {{"phase", phase}}}};
}

json::value list(json::array items) { return json::object{{"items", std::move(items)}}; }

TEST(VolumeReclaim, AVolumeIsStampedOnce) {
  const auto stamp = stamp_volume(volume("pv-a", "Bound", "Retain"), "uid-1");
  ASSERT_TRUE(stamp);
  EXPECT_EQ(stamp->verb, k8s::ActionVerb::MergePatch);
  EXPECT_EQ(stamp->target, (k8s::ObjectRef{"v1", "PersistentVolume", "", "pv-a"}));
  EXPECT_EQ(json::serialize(stamp->body),
            R"({"metadata":{"annotations":{"nvcre.nvidia.com/workflow-uid":"uid-1"}}})");
  EXPECT_FALSE(stamp_volume(volume("pv-a", "Bound", "Retain", "uid-1"), "uid-1"));
  // Another Workflow's stamp is replaced: the claim being deleted is this Workflow's.
  EXPECT_TRUE(stamp_volume(volume("pv-a", "Bound", "Retain", "uid-0"), "uid-1"));
}

TEST(VolumeReclaim, OnlyReleasedVolumesStampedByThisWorkflowAreFlipped) {
  const auto reclaim = reclaim_volumes(list({volume("mine-released", "Released", "Retain", "uid-1"),
                                             volume("mine-deleting", "Released", "Delete", "uid-1"),
                                             volume("foreign", "Released", "Retain", "uid-2"),
                                             volume("unstamped", "Released", "Retain")}),
                                       "uid-1");
  EXPECT_FALSE(reclaim.wait);
  ASSERT_EQ(reclaim.flips.size(), 1u);
  EXPECT_EQ(reclaim.flips[0].target.name, "mine-released");
  EXPECT_EQ(json::serialize(reclaim.flips[0].body),
            R"({"spec":{"persistentVolumeReclaimPolicy":"Delete"}})");
}

TEST(VolumeReclaim, AStillBoundVolumeIsWaitedFor) {
  const auto reclaim = reclaim_volumes(list({volume("mine", "Bound", "Retain", "uid-1"),
                                             volume("other", "Released", "Retain", "uid-1")}),
                                       "uid-1");
  EXPECT_TRUE(reclaim.wait);
  EXPECT_EQ(reclaim.flips.size(), 1u);
  EXPECT_FALSE(reclaim_volumes(list({volume("x", "Bound", "Retain", "uid-2")}), "uid-1").wait);
}

TEST(VolumeReclaim, ClaimsDeclaredAndBound) {
  api::WorkflowSpec spec;
  EXPECT_FALSE(declares_claims(spec));
  spec.dependencies.push_back({json::object{{"kind", "TrainingRuntime"}}, {}});
  EXPECT_FALSE(declares_claims(spec));
  spec.dependencies.push_back({json::object{{"kind", "PersistentVolumeClaim"}}, {}});
  EXPECT_TRUE(declares_claims(spec));
  EXPECT_EQ(bound_volume_name(json::parse(R"({"spec":{"volumeName":"pvc-1"}})")), "pvc-1");
  EXPECT_EQ(bound_volume_name(json::parse(R"({"spec":{}})")), "");
}

json::value claim(const std::string& name, const std::string& uid, const std::string& cls = "") {
  json::object spec{{"accessModes", json::array{"ReadWriteMany"}},
                    {"resources", {{"requests", {{"storage", "1Ti"}}}}}};
  if (!cls.empty()) spec["storageClassName"] = cls;
  return json::object{{"metadata", {{"name", name}, {"namespace", "it"}, {"uid", uid}}},
                      {"spec", spec}};
}

TEST(SimVolumeBinder, AClaimGetsAVolumeOfItsClassesPolicy) {
  const json::value retain =
      json::parse(R"({"metadata":{"name":"keep"},"reclaimPolicy":"Retain"})");
  const json::value fallback = json::parse(
      R"({"metadata":{"name":"std","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"reclaimPolicy":"Delete"})");
  const auto plan = sim::plan_volume_binding({claim("a", "u1", "keep"), claim("b", "u2")}, {},
                                             {retain, fallback});
  ASSERT_EQ(plan.create_volumes.size(), 2u);
  EXPECT_EQ(plan.create_volumes[0].at("metadata").at("name"), "pvc-u1");
  EXPECT_EQ(plan.create_volumes[0].at("spec").at("persistentVolumeReclaimPolicy"), "Retain");
  EXPECT_EQ(plan.create_volumes[0].at("spec").at("claimRef").at("uid"), "u1");
  EXPECT_EQ(plan.create_volumes[1].at("spec").at("persistentVolumeReclaimPolicy"), "Delete");
  ASSERT_EQ(plan.bind_claims.size(), 2u);
  EXPECT_EQ(plan.bind_claims[0].at("spec").at("volumeName"), "pvc-u1");
  EXPECT_EQ(plan.bind_claims[0].at("status").at("phase"), "Bound");
}

TEST(SimVolumeBinder, AVolumeWithoutItsClaimIsReleasedThenReclaimedUnderDelete) {
  json::value kept = volume("kept", "Bound", "Retain");
  kept.at("spec").at("claimRef").as_object()["uid"] = "gone-1";
  json::value dropped = volume("dropped", "Bound", "Delete");
  dropped.at("spec").at("claimRef").as_object()["uid"] = "gone-2";
  auto plan = sim::plan_volume_binding({}, {kept, dropped}, {});
  ASSERT_EQ(plan.volume_status.size(), 2u);
  EXPECT_EQ(plan.volume_status[0].at("status").at("phase"), "Released");
  EXPECT_TRUE(plan.delete_volumes.empty());
  kept.at("status").as_object()["phase"] = "Released";
  dropped.at("status").as_object()["phase"] = "Released";
  plan = sim::plan_volume_binding({}, {kept, dropped}, {});
  EXPECT_EQ(plan.delete_volumes, std::vector<std::string>{"dropped"});
  EXPECT_TRUE(plan.volume_status.empty());
  EXPECT_TRUE(sim::plan_volume_binding({claim("c", "gone-1")}, {}, {}).create_volumes.size() == 1);
}

}  // namespace
}  // namespace nvcre::workflow
