// GCP H100 detection: the GKE networks TCPXO attaches (shared by every node, exactly eight,
// ordered as the hosts attach them), the TCPXO plugin release of GKE's installer pods, and the
// Warning sentences when either falls back to the catalog defaults.
#include "catalog/tcpxo_detect.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::catalog {
namespace {
namespace json = boost::json;

const std::vector<std::string> kVpcs{"vpc1", "vpc2", "vpc3", "vpc4",
                                     "vpc5", "vpc6", "vpc7", "vpc8"};

// A node with `networks` allocatable (each also with its ".IP" twin and the default network); the
// host's ethN for network i is eth(order[i]) when `order` is given.
json::value node(const std::string& name, const std::vector<std::string>& networks,
                 const std::vector<int>& order = {}) {
  json::object allocatable{{"nvidia.com/gpu", "8"},
                           {"networking.gke.io.networks/default", "1"},
                           {"networking.gke.io.networks/default.IP", "1"}};
  json::array north;
  json::array nics;
  for (std::size_t i = 0; i < networks.size(); ++i) {
    allocatable["networking.gke.io.networks/" + networks[i]] = "1";
    allocatable["networking.gke.io.networks/" + networks[i] + ".IP"] = "1";
    const std::string ip = "10.1." + std::to_string(i) + ".2";
    north.push_back(json::object{{"network", networks[i]}, {"ipAddress", ip}});
    if (!order.empty())
      nics.push_back(json::object{{"birthIP", ip},
                                  {"birthName", "eth" + std::to_string(order[i])},
                                  {"pciAddress", "0000:00:00.0"}});
  }
  json::object metadata{{"name", name}};
  if (!order.empty()) {
    metadata["annotations"] =
        json::object{{"networking.gke.io/north-interfaces", json::serialize(north)},
                     {"networking.gke.io/nic-info", json::serialize(nics)}};
  }
  return json::object{{"metadata", metadata}, {"status", {{"allocatable", allocatable}}}};
}

TEST(TcpxoDetect, OnlyGcpH100Detects) {
  EXPECT_TRUE(is_gcp_h100("gcp", "h100"));
  EXPECT_FALSE(is_gcp_h100("gcp", "gb200"));
  EXPECT_FALSE(is_gcp_h100("aws", "h100"));
}

TEST(TcpxoDetect, EightSharedNetworksWithoutHostOrderAreSortedByName) {
  std::vector<std::string> shuffled{"vpc8", "vpc3", "vpc1", "vpc5", "vpc2", "vpc7", "vpc4", "vpc6"};
  const std::vector<json::value> nodes{node("a", shuffled), node("b", kVpcs)};
  const auto detection = detect_gke_tcpxo_networks(nodes);
  EXPECT_EQ(detection.names, kVpcs);
  EXPECT_EQ(detection.shared, kVpcs);
  EXPECT_FALSE(detection.host_ordered);
}

TEST(TcpxoDetect, NetworksFollowTheHostsNicsWhenEveryNodeAgrees) {
  const std::vector<int> order{8, 7, 6, 5, 4, 3, 2, 1};  // vpc1 on eth8 ... vpc8 on eth1
  const std::vector<json::value> nodes{node("a", kVpcs, order), node("b", kVpcs, order)};
  const auto detection = detect_gke_tcpxo_networks(nodes);
  EXPECT_EQ(detection.names, (std::vector<std::string>{"vpc8", "vpc7", "vpc6", "vpc5", "vpc4",
                                                       "vpc3", "vpc2", "vpc1"}));
  EXPECT_TRUE(detection.host_ordered);
  // One node disagreeing (or without annotations) falls back to name order.
  const std::vector<json::value> mixed{node("a", kVpcs, order),
                                       node("b", kVpcs, {1, 2, 3, 4, 5, 6, 7, 8})};
  EXPECT_EQ(detect_gke_tcpxo_networks(mixed).names, kVpcs);
  EXPECT_FALSE(detect_gke_tcpxo_networks(mixed).host_ordered);
  // Two networks on one interface is no order either.
  const std::vector<json::value> shared_eth{node("a", kVpcs, {1, 1, 2, 3, 4, 5, 6, 7})};
  EXPECT_FALSE(detect_gke_tcpxo_networks(shared_eth).host_ordered);
}

TEST(TcpxoDetect, NotExactlyEightSharedNetworksIsARefusalThatSaysWhatWasFound) {
  std::vector<std::string> seven(kVpcs.begin(), kVpcs.end() - 1);
  const std::vector<json::value> nodes{node("a", kVpcs), node("b", seven)};
  const auto detection = detect_gke_tcpxo_networks(nodes);
  EXPECT_TRUE(detection.names.empty());
  EXPECT_EQ(detection.shared, seven);
  EXPECT_EQ(gke_network_detection_message(detection),
            "GKE TCPXO network auto-detection found 7 networks allocatable on every target node "
            "(vpc1, vpc2, vpc3, vpc4, vpc5, vpc6, vpc7), but TCPXO needs exactly 8 GPU NIC "
            "networks per node (a3-megagpu-8g); rendering the default networks "
            "gpu-nic0..gpu-nic7 instead; GKE rejects the pods unless Network objects with those "
            "names exist.");
  const std::vector<json::value> bare{node("a", {})};
  EXPECT_EQ(gke_network_detection_message(detect_gke_tcpxo_networks(bare)),
            "GKE TCPXO network auto-detection found no networking.gke.io.networks/* resource "
            "allocatable on every target node, but TCPXO needs 8 GPU NIC networks per node "
            "(a3-megagpu-8g); rendering the default networks gpu-nic0..gpu-nic7 instead; GKE "
            "rejects the pods unless Network objects with those names exist.");
}

TEST(TcpxoDetect, PluginImageTags) {
  const std::string repo = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/";
  EXPECT_EQ(tcpxo_plugin_image_version(repo + "nccl-plugin-gpudirecttcpx-dev:v1.0.15"), "v1.0.15");
  EXPECT_EQ(tcpxo_plugin_image_version(repo + "nccl-plugin-gpudirecttcpx-dev:v1.0.15@sha256:ab"),
            "v1.0.15");
  EXPECT_EQ(tcpxo_plugin_image_version("mirror.local/nccl-plugin-gpudirecttcpx-dev@sha256:ab"), "");
  EXPECT_EQ(tcpxo_plugin_image_version(repo + "tcpgpudmarxd-dev:v1.0.21"), std::nullopt);
  EXPECT_EQ(tcpxo_plugin_image_version("registry:5000/other:v1.0.15"), std::nullopt);
}

json::value installer(const std::string& node, const std::string& image,
                      const std::string& phase = "Running", bool deleting = false) {
  json::object metadata{{"name", "nccl-tcpxo-installer-" + node}, {"namespace", "kube-system"}};
  if (deleting) metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  return json::object{
      {"metadata", metadata},
      {"spec",
       {{"nodeName", node},
        {"initContainers",
         json::array{json::object{{"name", "nccl-tcpxo-installer"}, {"image", image}}}},
        {"containers", json::array{json::object{{"name", "pause"}, {"image", "pause:3.9"}}}}}},
      {"status", {{"phase", phase}}}};
}

const std::string kPlugin =
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/"
    "nccl-plugin-gpudirecttcpx-dev:";

TEST(TcpxoDetect, OnlyRunningInstallersOnTargetNodesCount) {
  const std::vector<json::value> pods{
      installer("a", kPlugin + "v1.0.17"), installer("b", kPlugin + "v1.0.15", "Pending"),
      installer("c", kPlugin + "v1.0.15", "Running", true), installer("z", kPlugin + "v1.0.15")};
  std::vector<const json::value*> views;
  for (const auto& pod : pods) views.push_back(&pod);
  const auto tags = tcpxo_plugin_tags_by_node(views, {"a", "b", "c"});
  EXPECT_EQ(tags, (std::map<std::string, std::vector<std::string>>{{"a", {"v1.0.17"}}}));
}

TEST(TcpxoDetect, OneMappedReleaseOnEveryNodeIsExact) {
  const std::vector<std::string> nodes{"a", "b"};
  const auto detection =
      detect_tcpxo_plugin_version(nodes, {{"a", {"v1.0.17"}}, {"b", {"v1.0.17"}}});
  EXPECT_EQ(detection.version, "v1.0.17");
  EXPECT_TRUE(detection.exact);
}

TEST(TcpxoDetect, ANewerReleaseRendersTheNewestMappedAndSaysSo) {
  const std::vector<std::string> nodes{"a"};
  const auto detection = detect_tcpxo_plugin_version(nodes, {{"a", {"v1.0.20"}}});
  EXPECT_EQ(detection.version, "v1.0.20");
  EXPECT_FALSE(detection.exact);
  const std::string message = tcpxo_plugin_detection_message(detection);
  EXPECT_EQ(message.rfind("TCPXO plugin version detection found plugin v1.0.20, newer than the "
                          "latest mapped release v1.0.17; rendering the v1.0.17 images (",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("tcpxo-daemon us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/"
                         "tcpgpudmarxd-dev:v1.0.23), which are not validated against v1.0.20."),
            std::string::npos)
      << message;
}

TEST(TcpxoDetect, AnOlderReleaseRendersTheMinimumAndSaysToUpgrade) {
  const std::vector<std::string> nodes{"a"};
  const auto detection = detect_tcpxo_plugin_version(nodes, {{"a", {"v1.0.9"}}});
  EXPECT_EQ(detection.version, "v1.0.9");
  EXPECT_NE(tcpxo_plugin_detection_message(detection).find(
                "found plugin v1.0.9, older than the minimum supported release v1.0.15; "
                "rendering the v1.0.15 images"),
            std::string::npos);
}

TEST(TcpxoDetect, EachRefusalSaysWhatWasFound) {
  const std::vector<std::string> six{"n1", "n2", "n3", "n4", "n5", "n6"};
  auto reason = [&](const std::map<std::string, std::vector<std::string>>& tags) {
    const auto detection = detect_tcpxo_plugin_version(six, tags);
    EXPECT_EQ(detection.version, "");
    EXPECT_FALSE(detection.exact);
    const std::string message = tcpxo_plugin_detection_message(detection);
    const std::string head = "TCPXO plugin version detection ";
    EXPECT_EQ(message.substr(0, head.size()), head);
    EXPECT_NE(message.find("; rendering the images for v1.0.15, the minimum supported release "
                           "and the one AICR pins (NCCL image nvcr.io/nvidia/pytorch:25.06-py3"),
              std::string::npos)
        << message;
    return message.substr(head.size(), message.find("; rendering") - head.size());
  };
  EXPECT_EQ(reason({}),
            "found no running nccl-tcpxo-installer pod (image nccl-plugin-gpudirecttcpx-dev) on 6 "
            "of 6 target nodes: n1, n2, n3, n4, n5 and 1 more");
  std::map<std::string, std::vector<std::string>> mixed;
  for (const auto& n : six) mixed[n] = {n == "n1" ? "v1.0.15" : n == "n2" ? "" : "v1.0.17"};
  EXPECT_EQ(reason(mixed),
            "found different plugin versions across the target nodes (untagged, v1.0.15, "
            "v1.0.17)");
  std::map<std::string, std::vector<std::string>> untagged;
  for (const auto& n : six) untagged[n] = {""};
  EXPECT_EQ(reason(untagged), "found a nccl-plugin-gpudirecttcpx-dev image with no version tag");
  std::map<std::string, std::vector<std::string>> latest;
  for (const auto& n : six) latest[n] = {"latest"};
  EXPECT_EQ(reason(latest), "found plugin tag \"latest\", which is not a release version");
  EXPECT_EQ(tcpxo_plugin_detection_message(detect_tcpxo_plugin_version({}, {}))
                .find("TCPXO plugin version detection had no target nodes to read;"),
            0u);
}

}  // namespace
}  // namespace nvcre::catalog
