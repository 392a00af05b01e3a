// Bad input that passes the CRD schema but cannot be run, driven through the real manager against
// kube-sim: each case must end in a Failed condition whose reason and message say what to fix, a
// Warning event with that reason on the object, and nothing half-created (no Workflow, Job,
// TrainJob, TrainingRuntime or node-result ConfigMap in the case's namespace; a foreign object in
// the way is neither adopted nor deleted). WorkloadRun build failures are not here: every one
// of them (no framework member, torch script and module both or neither, diagnose scale, two
// config sources) is already refused by the CRD schema, so none reaches the controller.
#include "manager/embedded/embedded_cluster.hpp"
#include "test/support/resources.hpp"
#include "test/support/verdict.hpp"
#include "jsonkit/yaml.hpp"
#include "certification/naming.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kEvents;
using nvcre::testing::kWorkflows;
using nvcre::testing::Verdict;
using nvcre::testing::verdict_of;

// Everything a Certification or WorkloadRun creates under it, directly or through its Workflow.
const std::vector<k8s::ResourceRef> kChildKinds = {
    nvcre::testing::kWorkflows, nvcre::testing::kJobs, nvcre::testing::kTrainJobs,
    nvcre::testing::kTrainingRuntimes, nvcre::testing::kConfigMaps};

struct BadInput {
  std::string name;
  k8s::ResourceRef resource;
  std::string manifest;          // JSON, created in its own namespace
  std::string reason;            // the Failed condition's reason and the Warning event's
  std::string message_contains;  // what the message must say
  std::string
      foreign_workflow;  // non-empty: a foreign Workflow squats the name the object would use
};

std::ostream& operator<<(std::ostream& out, const BadInput& input) { return out << input.name; }

json::value certification(const std::string& ns, const json::value& category) {
  return json::object{{"apiVersion", "nvcre.nvidia.com/v1alpha1"},
                      {"kind", "Certification"},
                      {"metadata", {{"name", "bad"}, {"namespace", ns}}},
                      {"spec",
                       {{"target", {{"nodeSelector", {{"nvidia.com/gpu.present", "true"}}}}},
                        {"categories", json::array{category}}}}};
}

std::vector<BadInput> bad_inputs() {
  std::vector<BadInput> cases;
  cases.push_back(
      {"unknown-category", kCertifications,
       json::serialize(certification(
           "unknown-category",
           json::parse(R"({"domain": "communication", "variant": "nccl-all-redcue"})"))),
       "CategoryNotFound", "Unknown certification category: communication/nccl-all-redcue", ""});
  // 16 GPUs per node asked of 8-GPU H100 nodes: no node can run the job.
  cases.push_back(
      {"more-gpus-than-any-node", kCertifications,
       json::serialize(certification(
           "more-gpus-than-any-node",
           json::parse(
               R"({"domain": "communication", "variant": "nccl-all-reduce", "options": {"gpusPerNode": 16}})"))),
       "WorkflowValidationFailed", "no node can supply the 16 nvidia.com/gpu", ""});
  // One GPU on one node: under nemotron5-8b's 4-GPU minimum, and no smaller count exists.
  cases.push_back(
      {"no-valid-node-count", kCertifications,
       json::serialize(certification(
           "no-valid-node-count",
           json::parse(
               R"({"domain": "training", "variant": "nemotron5-8b", "options": {"gpusPerNode": 1, "nodesPerJob": 1}})"))),
       "WorkflowValidationFailed", "satisfies model constraints", ""});
  // A Workflow of the target name that this Certification does not own is in the way.
  cases.push_back(
      {"name-collision", kCertifications,
       json::serialize(certification(
           "name-collision",
           json::parse(R"({"domain": "communication", "variant": "nccl-all-reduce"})"))),
       "WorkflowNameCollision", "", "squatter"});
  return cases;
}

class ManagerBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ManagerBadInput, FailsWithAReasonAWarningAndNothingHalfCreated) {
  const BadInput& input = GetParam();
  manager::EmbeddedClusterOptions options;
  options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
  options.namespaces = {input.name};
  manager::EmbeddedCluster cluster(options);
  cluster.start();
  k8s::RestClient& client = cluster.client();

  json::value manifest = json::parse(input.manifest);
  if (!input.foreign_workflow.empty()) {
    // Squat the exact name the Certification's Workflow takes (certification/naming.hpp).
    api::CertificateCategory category;
    category.domain = "communication";
    category.variant = "nccl-all-reduce";
    const std::string workflow_name = certification::workflow_name("bad", category);
    // Someone else's valid Workflow (the example manifest), moved onto that name.
    std::ifstream example(std::string(NVCRE_SOURCE_DIR) + "/examples/workflow.yaml");
    json::value foreign =
        jsonkit::parse_yaml(std::string(std::istreambuf_iterator<char>(example), {}));
    foreign.at("metadata").as_object() = json::object{{"name", workflow_name},
                                                      {"namespace", input.name},
                                                      {"labels", {{"owner", "another-team"}}}};
    client.create(kWorkflows, input.name, foreign);
  }

  Manager manager(cluster.manager_options("it"));
  manager.start();
  client.create(input.resource, input.name, manifest);
  Verdict seen;
  for (int i = 0; i < 400 && seen.type.empty(); ++i) {
    seen = verdict_of(client.get(input.resource, input.name, "bad"));
    if (seen.type.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(seen.type, "Failed") << seen.reason << ": " << seen.message;
  EXPECT_EQ(seen.reason, input.reason) << seen.message;
  EXPECT_NE(seen.message.find(input.message_contains), std::string::npos) << seen.message;

  bool warned = false;
  for (int i = 0; i < 100 && !warned; ++i) {
    const json::value events = client.list(kEvents, input.name);
    for (const auto& event : events.at("items").as_array()) {
      warned =
          warned || (event.at("type") == "Warning" && event.at("reason") == input.reason.c_str() &&
                     event.at("regarding").at("name") == "bad");
    }
    if (!warned) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(warned) << "no Warning event " << input.reason << " on " << input.name << "/bad";

  // Give a wrongly-continuing reconcile time to create something, then look.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  bool foreign_seen = false;
  for (const auto& kind : kChildKinds) {
    const json::value children = client.list(kind, input.name);
    for (const auto& child : children.at("items").as_array()) {
      const std::string name(child.at("metadata").at("name").as_string());
      if (kind.resource == "configmaps" && name == "kube-root-ca.crt") continue;
      if (kind.resource == "workflows" && !input.foreign_workflow.empty()) {
        // Never adopted: no owner was added and its labels are its own. (Our Workflow controller
        // does reconcile it, as any Workflow: on these clique-less nodes its own topology spec
        // fails to partition, so it creates no Jobs of its own either.)
        EXPECT_EQ(child.at("metadata").as_object().if_contains("ownerReferences"), nullptr)
            << json::serialize(child);
        EXPECT_EQ(child.at("metadata").at("labels"), (json::object{{"owner", "another-team"}}))
            << json::serialize(child);
        foreign_seen = true;
        continue;
      }
      ADD_FAILURE() << "left behind: " << kind.resource << "/" << name;
    }
  }
  EXPECT_EQ(foreign_seen, !input.foreign_workflow.empty()) << "the foreign Workflow was deleted";
}

INSTANTIATE_TEST_SUITE_P(Cases, ManagerBadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (auto& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace nvcre::actors
