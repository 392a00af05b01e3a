// The checkpoint volume of a training run through the real manager on kube-sim, whose volume
// controller provisions a PersistentVolume per claim with its StorageClass's reclaim policy: the
// volume of the run's claim is stamped with the Workflow's uid before the claim is deleted, stays
// (Released, Retain) while the Workflow lives, and is flipped to Delete, and so reclaimed, when
// the Workflow is deleted. A Released Retain volume the Workflow never stamped is left alone.
#include "jsonkit/paths.hpp"
#include "test/support/embedded_manager.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kWorkflows;
using std::chrono::seconds;

const k8s::ResourceRef kVolumes{"", "v1", "persistentvolumes", false};
const k8s::ResourceRef kStorageClasses{"storage.k8s.io", "v1", "storageclasses", false};

json::value checkpointed_training() {
  return json::object{
      {"apiVersion", "nvcre.nvidia.com/v1alpha1"},
      {"kind", "Certification"},
      {"metadata", {{"name", "ckpt"}, {"namespace", "it"}}},
      {"spec",
       {{"target", {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}}},
        {"categories", json::array{json::object{{"domain", "training"},
                                                {"variant", "nemotron5-8b"},
                                                {"options",
                                                 {{"nodesPerJob", 4},
                                                  {"maxSteps", 50},
                                                  {"enableCheckpoint", true},
                                                  {"storageClassName", "keep"}}}}}}}}};
}

class ManagerVolumeReclaim : public nvcre::testing::EmbeddedManagerTest {
 protected:
  void SetUp() override {
    manager::EmbeddedClusterOptions options;
    options.profile = "aws:h100:4";
    start(std::move(options));
    client_->create(kStorageClasses, "",
                    json::parse(R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass",
                      "metadata":{"name":"keep"},"provisioner":"sim.nvcre.nvidia.com",
                      "reclaimPolicy":"Retain"})"));
    // Someone else's released volume, kept on purpose.
    client_->create(kVolumes, "", json::parse(R"({"apiVersion":"v1","kind":"PersistentVolume",
                      "metadata":{"name":"foreign"},
                      "spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],
                        "persistentVolumeReclaimPolicy":"Retain",
                        "claimRef":{"namespace":"it","name":"nemotron-pvc","uid":"gone"},
                        "csi":{"driver":"sim.nvcre.nvidia.com","volumeHandle":"foreign"}}})"));
  }

  // The volumes the run's claims got (kube-sim names them after the claim's uid).
  std::vector<json::value> provisioned() {
    std::vector<json::value> out;
    for (const auto& volume : items(kVolumes)) {
      if (jsonkit::string_at(volume, {"metadata", "name"}).starts_with("pvc-"))
        out.push_back(volume);
    }
    return out;
  }

  std::string policy(const json::value& volume) {
    return jsonkit::string_at(volume, {"spec", "persistentVolumeReclaimPolicy"});
  }
};

TEST_F(ManagerVolumeReclaim, TheRunsVolumeIsStampedKeptAndReclaimedWithTheWorkflow) {
  client_->create(kCertifications, "it", checkpointed_training());
  const auto verdict = wait_for_verdict("ckpt", seconds(120));
  ASSERT_EQ(verdict.type, "Succeeded") << verdict.reason << ": " << verdict.message;
  const auto workflows = items(kWorkflows);
  ASSERT_EQ(workflows.size(), 1u);
  const std::string uid = jsonkit::string_at(workflows.front(), {"metadata", "uid"});

  // The group's claim is gone; its volume is Released, stamped, still Retain.
  std::vector<json::value> volumes;
  ASSERT_TRUE(nvcre::test::eventually(
      [&] {
        volumes = provisioned();
        return volumes.size() == 1 &&
               jsonkit::string_at(volumes.front(), {"status", "phase"}) == "Released";
      },
      seconds(30), std::chrono::milliseconds(100)))
      << json::serialize(json::value_from(items(kVolumes)));
  const json::value& volume = volumes.front();
  EXPECT_EQ(
      jsonkit::string_at(volume, {"metadata", "annotations", "nvcre.nvidia.com/workflow-uid"}),
      uid);
  EXPECT_EQ(policy(volume), "Retain");
  EXPECT_EQ(jsonkit::string_at(volume, {"spec", "storageClassName"}), "keep");

  // Deleting the Certification deletes its Workflow: the volume goes from Retain to Delete and is
  // reclaimed; the foreign volume keeps its policy.
  client_->remove(kCertifications, "it", "ckpt");
  EXPECT_TRUE(nvcre::test::eventually([&] { return provisioned().empty(); }, seconds(60),
                                      std::chrono::milliseconds(100)))
      << json::serialize(json::value_from(items(kVolumes)));
  EXPECT_TRUE(nvcre::test::eventually([&] { return items(kWorkflows).empty(); }, seconds(30),
                                      std::chrono::milliseconds(100)));
  EXPECT_EQ(policy(client_->get(kVolumes, "", "foreign")), "Retain");
}

}  // namespace
}  // namespace nvcre::actors
