// The platform x GPU matrix against the real manager (cases named
// `certification-<platform>-<gpu>-<category>`): per case, a
// simulated cluster of one platform's GPU nodes (kube-sim, sim/cluster_profile.hpp), the real
// manager, and one Certification with one category created through the API. The golden
// (test/testdata/manager-matrix/<case>/expected.json) is what the controllers create for it: the
// Workflow (catalog templating, platform detection from the nodes' provider IDs and labels,
// override resolution) and everything created under it (the group's Job, the TrainingRuntime,
// ComputeDomain, ResourceClaimTemplate and ConfigMap copies, the TrainJob).
//
// Every case also checks that the manager and the CLI agree: the created Workflow's spec must equal
// the offline render of the same Certification for the same platform and GPU architecture (the
// function `nvcrectl certification render --platform P --gpu-arch A` calls), so a golden can only
// be updated into a state the CLI would also print.
//
// case.yaml:
//   cluster: PLATFORM:GPU:NODES        the simulated cluster
//   (manager::EmbeddedClusterOptions.profile) certification: {...}               created as is in
//   namespace "it" nodeAllocatable: {...}             optional: extra allocatable resources on
//   every node, set
//                                      before the manager starts (device plugins the profile lacks)
//   offlineOptions: {...}              optional: category options the offline render needs to see
//   what
//                                      the controller learns from the nodes (say why next to it)
#include "manager/embedded/embedded_cluster.hpp"
#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "catalog/tcpxo_detect.hpp"
#include "certification/build.hpp"
#include "platform/detect.hpp"
#include "test/support/golden.hpp"
#include "test/support/golden_inputs.hpp"
#include "test/support/resources.hpp"
#include "test/support/sanitize.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::GoldenCase;
using nvcre::testing::kCertifications;
using nvcre::testing::kNodes;
using nvcre::testing::kWorkflows;
using nvcre::testing::string_at;

constexpr const char* kNamespace = "it";

// What the controllers create under a Workflow, in the order the golden lists them. Pods are left
// out: the simulated Trainer makes them, not nvcre.
struct ChildKind {
  const char* kind;
  k8s::ResourceRef ref;
};
const std::vector<ChildKind>& child_kinds() {
  static const std::vector<ChildKind> kinds{
      {"Job", {"nvcre.nvidia.com", "v1alpha1", "jobs", true}},
      {"TrainingRuntime", {"trainer.kubeflow.org", "v1alpha1", "trainingruntimes", true}},
      {"ComputeDomain", {"resource.nvidia.com", "v1beta1", "computedomains", true}},
      {"ResourceClaimTemplate", {"resource.k8s.io", "v1", "resourceclaimtemplates", true}},
      {"ConfigMap", {"", "v1", "configmaps", true}},
      {"PersistentVolumeClaim", {"", "v1", "persistentvolumeclaims", true}},
      {"TrainJob", {"trainer.kubeflow.org", "v1alpha1", "trainjobs", true}},
  };
  return kinds;
}

// The reason of the True condition of `type`, or "" when there is none.
std::string true_condition_reason(const json::value& object, const char* type) {
  const auto* status = object.as_object().if_contains("status");
  const auto* conditions = status == nullptr || !status->is_object()
                               ? nullptr
                               : status->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) return {};
  for (const auto& condition : conditions->as_array()) {
    if (condition.at("type") == type && condition.at("status") == "True")
      return string_at(condition, {"reason"});
  }
  return {};
}

bool owned_by_any(const json::value& object, const std::set<std::string>& owner_uids) {
  const auto* owners = object.at("metadata").as_object().if_contains("ownerReferences");
  if (owners == nullptr || !owners->is_array()) return false;
  return std::any_of(
      owners->as_array().begin(), owners->as_array().end(),
      [&](const json::value& owner) { return owner_uids.count(string_at(owner, {"uid"})) != 0; });
}

struct Created {
  json::value workflow;                                       // null until the Workflow exists
  std::vector<std::pair<std::string, json::value>> children;  // "Kind/name" -> object, golden order
  std::size_t count(std::string_view kind) const {
    return std::count_if(children.begin(), children.end(), [&](const auto& child) {
      return child.first.rfind(std::string(kind) + "/", 0) == 0;
    });
  }
};

class ManagerMatrix : public ::testing::TestWithParam<GoldenCase> {
 protected:
  void TearDown() override {
    manager_.reset();
    cluster_.reset();
  }

  void start(const std::string& profile, const json::value* extra_allocatable) {
    manager::EmbeddedClusterOptions options;
    options.profile = profile;
    options.crds_dir = std::string(NVCRE_SOURCE_DIR) + "/deploy/crds";
    options.namespaces = {kNamespace};
    // The Trainer binds the TrainJob's pods at once and then waits this long before running them,
    // so every object is collected in the same, settled state.
    options.trainer_step = std::chrono::minutes(10);
    cluster_ = std::make_unique<manager::EmbeddedCluster>(options);
    cluster_->start();
    if (extra_allocatable != nullptr) {
      const json::value nodes = cluster_->client().list(kNodes, "");
      const json::value patch{
          {"status", {{"allocatable", *extra_allocatable}, {"capacity", *extra_allocatable}}}};
      for (const auto& node : nodes.at("items").as_array()) {
        cluster_->client().merge_patch_status(kNodes, "", string_at(node, {"metadata", "name"}),
                                              patch);
      }
    }
    manager_ = std::make_unique<Manager>(cluster_->manager_options("it"));
    manager_->start();
  }

  // The Certification's Workflow and its descendants (by owner reference, transitively).
  Created collect(const std::string& certification_name) {
    Created created;
    const json::value workflows = cluster_->client().list(kWorkflows, kNamespace);
    for (const auto& workflow : workflows.at("items").as_array()) {
      if (string_at(workflow, {"metadata", "labels", "nvcre.nvidia.com/certification"}) ==
          certification_name) {
        created.workflow = workflow;
      }
    }
    if (created.workflow.is_null()) return created;
    std::set<std::string> owners{string_at(created.workflow, {"metadata", "uid"})};
    // Job-scoped copies are owned by the Workflow, TrainJobs by the Job: one pass per kind in
    // child_kinds() order reaches both.
    for (const auto& child : child_kinds()) {
      const json::value list = cluster_->client().list(child.ref, kNamespace);
      std::vector<std::pair<std::string, json::value>> found;
      for (const auto& item : list.at("items").as_array()) {
        if (!owned_by_any(item, owners)) continue;
        found.emplace_back(std::string(child.kind) + "/" + string_at(item, {"metadata", "name"}),
                           item);
      }
      std::sort(found.begin(), found.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [key, item] : found) {
        owners.insert(string_at(item, {"metadata", "uid"}));
        created.children.emplace_back(key, std::move(item));
      }
    }
    return created;
  }

  // Settled: every group launched and running (Workflow InProgress=JobRunning, one Job per group,
  // each Job InProgress=WorkloadRunning with its TrainJob created). From here nothing changes until
  // the Trainer's next step, minutes away.
  static bool settled(const Created& created) {
    if (created.workflow.is_null()) return false;
    if (true_condition_reason(created.workflow, "InProgress") != "JobRunning") return false;
    const auto* groups =
        created.workflow.at("status").at("orchestration").as_object().if_contains("groups");
    if (groups == nullptr || !groups->is_array() || groups->as_array().empty()) return false;
    for (const auto& group : groups->as_array()) {
      if (string_at(group, {"phase"}) != "Running") return false;
    }
    if (created.count("Job") != groups->as_array().size() ||
        created.count("TrainJob") != created.count("Job")) {
      return false;
    }
    for (const auto& [key, object] : created.children) {
      if (key.rfind("Job/", 0) == 0 &&
          true_condition_reason(object, "InProgress") != "WorkloadRunning")
        return false;
    }
    return true;
  }

  // Polls until settled; the deadline only bounds a failing case.
  Created wait_until_settled(const std::string& certification_name) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    Created created = collect(certification_name);
    while (!settled(created) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      created = collect(certification_name);
    }
    return created;
  }

  // The created Workflow as `nvcrectl certification render` prints it for this cluster, put through
  // the API server's admission (server-side dry run) so CRD defaults apply to both sides alike.
  json::value offline_render(const api::Certification& certification,
                             const json::value& extra_options,
                             const json::value& created_workflow) {
    api::Certification offline = certification;
    auto& category = offline.spec.categories.at(0);
    if (!category.options) category.options.emplace();
    // Offline there is no cluster to count: the render takes the node count the controller chose.
    if (!category.options->nodesPerJob) {
      const auto& chosen = created_workflow.at("status").at("orchestration").at("nodesPerJob");
      category.options->nodesPerJob = static_cast<std::int32_t>(chosen.to_number<std::int64_t>());
    }
    if (extra_options.is_object()) {
      json::value encoded = api::encode_object(offline);
      auto& options = encoded.at("spec").at("categories").at(0).as_object()["options"].as_object();
      for (const auto& [key, value] : extra_options.as_object()) options[key] = value;
      offline = api::decode_object<api::Certification>(encoded);
    }
    const auto& profile = cluster_->profile();
    certification::BuildInput
        input;  // what cli/certification_commands.cpp render_certification passes
    input.offline = true;
    input.gpu_architecture = profile.architecture;
    input.nodes.push_back(
        platform::synthetic_node(offline.spec.target.nodeSelector, profile.platform));
    auto build =
        certification::build_category_workflow(offline, offline.spec.categories.at(0), input);
    EXPECT_EQ(build.platform, profile.platform);
    EXPECT_EQ(build.gpu_architecture, profile.architecture);
    json::value rendered = api::encode_object(build.workflow);
    auto& metadata = rendered.at("metadata").as_object();
    metadata["name"] = "offline-render";
    metadata.erase("ownerReferences");
    with_detected_gke_networks(rendered);
    k8s::WriteOptions dry_run;
    dry_run.dry_run = true;
    return cluster_->client().create(kWorkflows, kNamespace, rendered, dry_run);
  }

  // GCP H100: offline there are no nodes to read, so the render names the catalog's default GKE
  // networks; the controller names those the nodes attach. The offline render is given the
  // networks the detection finds on this cluster's nodes, so both sides agree on the rest.
  void with_detected_gke_networks(json::value& rendered) {
    const auto& profile = cluster_->profile();
    if (!catalog::is_gcp_h100(profile.platform, profile.architecture)) return;
    const json::value list = cluster_->client().list(kNodes, "");
    const auto& items = list.at("items").as_array();
    const auto detected =
        catalog::detect_gke_tcpxo_networks(std::vector<json::value>(items.begin(), items.end()));
    ASSERT_FALSE(detected.names.empty()) << "kube-sim's GCP H100 nodes attach no GKE networks";
    std::string text = json::serialize(rendered);
    for (std::size_t nic = 0; nic < detected.names.size(); ++nic) {
      const std::string from = R"(\"network\":\"gpu-nic)" + std::to_string(nic) + R"(\")";
      const std::string to = R"(\"network\":\")" + detected.names[nic] + R"(\")";
      for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    }
    rendered = json::parse(text);
  }

  std::unique_ptr<manager::EmbeddedCluster> cluster_;
  std::unique_ptr<Manager> manager_;
};

TEST_P(ManagerMatrix, CreatesTheRenderedWorkflowAndItsChildren) {
  nvcre::testing::check_golden(GetParam(), [this](const GoldenCase& golden_case) {
    const json::value input = jsonkit::parse_yaml(golden_case.input("case.yaml"));
    start(std::string(input.at("cluster").as_string()),
          input.as_object().if_contains("nodeAllocatable"));
    json::value certification_object = input.at("certification");
    certification_object.at("metadata").as_object()["namespace"] = kNamespace;
    const std::string name = string_at(certification_object, {"metadata", "name"});
    cluster_->client().create(kCertifications, kNamespace, certification_object);

    const Created created = wait_until_settled(name);
    if (!settled(created)) {
      throw std::runtime_error(
          "the Certification's Workflow did not settle with its groups running; last seen: " +
          json::serialize(created.workflow));
    }

    // The manager and the CLI agree on the spec. Overrides the controller still has to evaluate
    // stay on the created Workflow (the golden shows them); the offline render drops every
    // override.
    const auto* offline_options = input.as_object().if_contains("offlineOptions");
    json::value offline = offline_render(
        api::decode_object<api::Certification>(certification_object),
        offline_options == nullptr ? json::value() : *offline_options, created.workflow);
    json::value created_spec = created.workflow.at("spec");
    created_spec.as_object().erase("overrides");
    EXPECT_TRUE(offline.at("spec") == created_spec)
        << "the created Workflow's spec differs from the offline render (-offline +created):\n"
        << nvcre::testing::line_diff(jsonkit::to_pretty_json(offline.at("spec")),
                                     jsonkit::to_pretty_json(created_spec));
    // Detection read the simulated nodes as the profile's platform and GPU, whatever the golden
    // says.
    const auto& orchestration = created.workflow.at("status").at("orchestration");
    EXPECT_EQ(string_at(orchestration, {"detectedPlatform"}), cluster_->profile().platform);
    EXPECT_EQ(string_at(orchestration, {"detectedGPUArchitecture"}),
              cluster_->profile().architecture);

    json::object golden;
    golden["Workflow/" + string_at(created.workflow, {"metadata", "name"})] =
        nvcre::testing::sanitize_object(created.workflow);
    for (const auto& [key, object] : created.children) {
      json::value sanitized = nvcre::testing::sanitize_object(object);
      // The TrainJob's status is the simulated Trainer's pod bookkeeping, not nvcre's output.
      if (key.rfind("TrainJob/", 0) == 0) sanitized.as_object().erase("status");
      golden[key] = std::move(sanitized);
    }
    return jsonkit::to_pretty_json(golden);
  });
}

NVCRE_GOLDEN_SUITE(ManagerMatrix, "manager-matrix");

}  // namespace
}  // namespace nvcre::actors
