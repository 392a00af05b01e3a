#pragma once
// What GCP H100 (GKE A3 Mega) renders read from the cluster: the GKE networks the TCPXO NICs sit
// on (from the target nodes) and the TCPXO NCCL plugin release (from GKE's nccl-tcpxo-installer
// pods on them), each with the sentence a Certification's Warning says when detection falls back
// to the catalog defaults (GKENetworkDetection, TCPXOPluginDetection). Pure: the caller passes the
// nodes and the installer pods it read.
#include "k8s/object_cache.hpp"

#include <boost/json/value.hpp>

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nvcre::catalog {

inline constexpr std::string_view kGkeNetworkResourcePrefix = "networking.gke.io.networks/";
inline constexpr std::string_view kTcpxoInstallerNamespace = "kube-system";
inline constexpr std::string_view kTcpxoPluginImageName = "nccl-plugin-gpudirecttcpx-dev";

// Detection runs only for the pair the TCPXO overrides match.
bool is_gcp_h100(std::string_view platform, std::string_view architecture);

struct GkeNetworkDetection {
  std::vector<std::string> names;   // in pod interface order (eth1..); empty: defaults rendered
  std::vector<std::string> shared;  // sorted: the networks allocatable on every node
  bool host_ordered = false;        // names follow the host's NICs (else sorted by name)
};

// The networks allocatable on every node (`networking.gke.io.networks/<name>` minus "default" and
// "<name>.IP"), used only when exactly kGkeTcpxoNicsPerNode qualify: ordered as the hosts attach
// them (annotations networking.gke.io/north-interfaces and nic-info, joined on the IP) when every
// node places each on its own ethN and all nodes agree, else by name.
GkeNetworkDetection detect_gke_tcpxo_networks(std::span<const boost::json::value> nodes);

// Why detection gave no names and what is rendered instead (the GKENetworkDetection Warning).
std::string gke_network_detection_message(const GkeNetworkDetection& detection);

// The release tag of a TCPXO plugin installer image ("" for a digest-only reference), or nullopt
// when the image's last path segment is not the plugin installer's.
std::optional<std::string> tcpxo_plugin_image_version(std::string_view image);

// The same over the kube-system pods an informer cache holds, for the given nodes.
std::map<std::string, std::vector<std::string>> cached_tcpxo_plugin_tags(
    const k8s::CacheView& cache, std::span<const boost::json::value> nodes);

// node -> the plugin tag of each Running, not-deleting installer pod on it (its first container or
// init container running the plugin image), for the nodes in `nodes` only.
std::map<std::string, std::vector<std::string>> tcpxo_plugin_tags_by_node(
    std::span<const boost::json::value* const> pods, const std::set<std::string>& nodes);

struct TcpxoPluginDetection {
  std::string version;  // the one release every node runs (mapped or not); "" when none
  bool exact = false;   // `version` is a mapped release: its own images render
  std::size_t nodes = 0;
  std::vector<std::string> missing;   // sorted: nodes without a running installer
  std::vector<std::string> versions;  // sorted distinct tags found ("" = untagged)
  std::string list_error;             // the installer pods could not be read
};

// A release only when every node (name-sorted `nodes`) runs exactly the same parseable tag.
TcpxoPluginDetection detect_tcpxo_plugin_version(
    std::span<const std::string> nodes,
    const std::map<std::string, std::vector<std::string>>& tags_by_node);

// What detection found and which images render instead (the TCPXOPluginDetection Warning); only
// for a result that is not exact.
std::string tcpxo_plugin_detection_message(const TcpxoPluginDetection& detection);

}  // namespace nvcre::catalog
