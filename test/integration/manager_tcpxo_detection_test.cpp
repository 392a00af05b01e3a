// GCP H100 (GKE A3 Mega) detection through the real manager on kube-sim: the GKE networks the
// TCPXO NICs sit on are read from the target nodes and the TCPXO plugin release from GKE's
// nccl-tcpxo-installer pods on them; what either finds decides the rendered interfaces annotation
// and images, and a fallback to the catalog defaults is said in a Warning on the Certification.
#include "jsonkit/paths.hpp"
#include "test/support/embedded_manager.hpp"
#include "test/support/certification_object.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using nvcre::testing::kCertifications;
using nvcre::testing::kEvents;
using nvcre::testing::kNodes;
using nvcre::testing::kWorkflows;

const k8s::ResourceRef kPods{"", "v1", "pods", true};
const k8s::ResourceRef kNamespaces{"", "v1", "namespaces", false};
const std::string kPluginRepo =
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:";
const std::string kDaemonRepo = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:";

class ManagerTcpxoDetection : public nvcre::testing::EmbeddedManagerTest {
 protected:
  // kube-sim's A3 Mega nodes attach networks vpc1..vpc8; `prepare` shapes the cluster the
  // manager then starts on.
  void start_gcp(const std::function<void()>& prepare) {
    manager::EmbeddedClusterOptions options;
    options.profile = "gcp:h100:4";
    start(std::move(options), nullptr, prepare);
  }

  std::vector<std::string> node_names() {
    std::vector<std::string> names;
    for (const auto& node : items(kNodes))
      names.push_back(jsonkit::string_at(node, {"metadata", "name"}));
    return names;
  }

  // GKE's installer DaemonSet pod on `node`, Running with the plugin release `tag`.
  void run_installer(const std::string& node, const std::string& tag) {
    try {
      client_->create(kNamespaces, "",
                      json::object{{"apiVersion", "v1"},
                                   {"kind", "Namespace"},
                                   {"metadata", {{"name", "kube-system"}}}});
    } catch (const std::exception&) {  // it exists already
    }
    const std::string name = "nccl-tcpxo-installer-" + node;
    client_->create(
        kPods, "kube-system",
        json::object{
            {"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "kube-system"}}},
            {"spec",
             {{"nodeName", node},
              {"initContainers", json::array{json::object{{"name", "nccl-tcpxo-installer"},
                                                          {"image", kPluginRepo + tag}}}},
              {"containers", json::array{json::object{{"name", "pause"},
                                                      {"image", "registry.k8s.io/pause:3.9"}}}}}}});
    client_->merge_patch_status(kPods, "kube-system", name,
                                json::parse(R"({"status":{"phase":"Running"}})"));
  }

  json::value workflow_after_verdict(const std::string& name) {
    client_->create(kCertifications, "it", nvcre::testing::one_category_certification(name));
    const auto verdict = wait_for_verdict(name);
    EXPECT_EQ(verdict.type, "Succeeded") << verdict.reason << ": " << verdict.message;
    const auto workflows = items(kWorkflows);
    EXPECT_EQ(workflows.size(), 1u);
    return workflows.empty() ? json::value() : workflows.front();
  }

  // The Warning notes of `reason` on Certification `name`.
  std::vector<std::string> warnings(const std::string& name, const std::string& reason) {
    std::vector<std::string> notes;
    for (const auto& event : items(kEvents)) {
      if (jsonkit::string_at(event, {"regarding", "name"}) == name &&
          jsonkit::string_at(event, {"type"}) == "Warning" &&
          jsonkit::string_at(event, {"reason"}) == reason)
        notes.push_back(jsonkit::string_at(event, {"note"}));
    }
    return notes;
  }

  static bool contains(const json::value& object, const std::string& text) {
    return json::serialize(object).find(text) != std::string::npos;
  }
};

TEST_F(ManagerTcpxoDetection, DetectedNetworksAndPluginReleaseDecideTheRender) {
  start_gcp([&] {
    for (const auto& node : node_names()) run_installer(node, "v1.0.17");
  });
  const json::value workflow = workflow_after_verdict("tcpxo");
  // The nodes' own networks, in name order, on eth1..eth8.
  EXPECT_TRUE(contains(workflow, R"({\"interfaceName\":\"eth1\",\"network\":\"vpc1\"})"))
      << json::serialize(workflow);
  EXPECT_TRUE(contains(workflow, R"({\"interfaceName\":\"eth8\",\"network\":\"vpc8\"})"));
  EXPECT_FALSE(contains(workflow, "gpu-nic0"));
  // v1.0.17's CUDA 13 NCCL image and its paired daemon.
  EXPECT_TRUE(contains(workflow, kDaemonRepo + "v1.0.23")) << json::serialize(workflow);
  EXPECT_TRUE(contains(workflow, "nvcr.io/nvidia/pytorch:26.01-py3"));
  EXPECT_FALSE(contains(workflow, kDaemonRepo + "v1.0.21"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // events are recorded async
  EXPECT_TRUE(warnings("tcpxo", "TCPXOPluginDetection").empty());
  EXPECT_TRUE(warnings("tcpxo", "GKENetworkDetection").empty());
}

TEST_F(ManagerTcpxoDetection, FallbacksRenderTheDefaultsAndSayWhy) {
  // One node lacks vpc8, and no installer runs anywhere.
  start_gcp([&] {
    client_->merge_patch_status(
        kNodes, "", node_names().back(),
        json::parse(R"({"status":{"allocatable":{"networking.gke.io.networks/vpc8":null}}})"));
  });
  const json::value workflow = workflow_after_verdict("fallback");
  EXPECT_TRUE(contains(workflow, R"({\"interfaceName\":\"eth1\",\"network\":\"gpu-nic0\"})"))
      << json::serialize(workflow);
  EXPECT_TRUE(contains(workflow, kDaemonRepo + "v1.0.21"));  // the minimum release's daemon
  std::vector<std::string> gke;
  std::vector<std::string> plugin;
  for (int i = 0; i < 100 && (gke.empty() || plugin.empty()); ++i) {
    gke = warnings("fallback", "GKENetworkDetection");
    plugin = warnings("fallback", "TCPXOPluginDetection");
    if (gke.empty() || plugin.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(gke.size(), 1u);
  EXPECT_EQ(gke.front(),
            "communication/nccl-all-reduce: GKE TCPXO network auto-detection found 7 networks "
            "allocatable on every target node (vpc1, vpc2, vpc3, vpc4, vpc5, vpc6, vpc7), but "
            "TCPXO needs exactly 8 GPU NIC networks per node (a3-megagpu-8g); rendering the "
            "default networks gpu-nic0..gpu-nic7 instead; GKE rejects the pods unless Network "
            "objects with those names exist.");
  ASSERT_EQ(plugin.size(), 1u);
  EXPECT_EQ(plugin.front().rfind("communication/nccl-all-reduce: TCPXO plugin version detection "
                                 "found no running nccl-tcpxo-installer pod (image "
                                 "nccl-plugin-gpudirecttcpx-dev) on 4 of 4 target nodes: ",
                                 0),
            0u)
      << plugin.front();
}

}  // namespace
}  // namespace nvcre::actors
