#include "catalog/tcpxo_detect.hpp"

#include "catalog/tcpxo.hpp"
#include "jsonkit/paths.hpp"
#include "platform/detect.hpp"
#include "platform/platform_names.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>

namespace nvcre::catalog {
namespace json = boost::json;

namespace {

// Messages list at most this many node names, so an event note stays short.
constexpr std::size_t kMessageMaxNodes = 5;

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// A JSON-array annotation of objects, or nullopt when absent or malformed.
std::optional<json::array> annotation_array(const json::value& node, std::string_view key) {
  const json::object* annotations = jsonkit::object_at(node, {"metadata", "annotations"});
  const json::string* text = jsonkit::find_string(annotations, key);
  if (text == nullptr) return std::nullopt;
  boost::system::error_code error;
  json::value parsed = json::parse(*text, error);
  if (error || !parsed.is_array()) return std::nullopt;
  return std::move(parsed.as_array());
}

// `networks` ordered by the ethN each is attached to on `node`; nullopt when the annotations are
// missing or malformed or a network does not land on an ethN of its own.
std::optional<std::vector<std::string>> host_nic_order(const json::value& node,
                                                       const std::vector<std::string>& networks) {
  auto north = annotation_array(node, "networking.gke.io/north-interfaces");
  auto nics = annotation_array(node, "networking.gke.io/nic-info");
  if (!north || !nics) return std::nullopt;
  std::map<std::string, int> eth_by_ip;
  for (const auto& nic : *nics) {
    const std::string name = jsonkit::string_of(nic.if_object(), "birthName");
    if (!name.starts_with("eth")) continue;
    int index = 0;
    auto [end, error] = std::from_chars(name.data() + 3, name.data() + name.size(), index);
    if (error == std::errc{} && end == name.data() + name.size() && name.size() > 3)
      eth_by_ip[jsonkit::string_of(nic.if_object(), "birthIP")] = index;
  }
  std::map<std::string, int> eth_by_network;
  for (const auto& entry : *north) {
    auto eth = eth_by_ip.find(jsonkit::string_of(entry.if_object(), "ipAddress"));
    if (eth != eth_by_ip.end())
      eth_by_network[jsonkit::string_of(entry.if_object(), "network")] = eth->second;
  }
  std::set<int> seen;
  for (const auto& network : networks) {
    auto eth = eth_by_network.find(network);
    if (eth == eth_by_network.end() || !seen.insert(eth->second).second) return std::nullopt;
  }
  std::vector<std::string> ordered = networks;
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    return eth_by_network.at(a) < eth_by_network.at(b);
  });
  return ordered;
}

std::string node_list_suffix(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  const std::vector<std::string> shown(
      names.begin(),
      names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), kMessageMaxNodes)));
  std::string out = ": " + joined(shown);
  if (names.size() > shown.size())
    out += " and " + std::to_string(names.size() - shown.size()) + " more";
  return out;
}

}  // namespace

bool is_gcp_h100(std::string_view platform, std::string_view architecture) {
  return platform == platform::kGcp && architecture == "h100";
}

GkeNetworkDetection detect_gke_tcpxo_networks(std::span<const json::value> nodes) {
  GkeNetworkDetection detection;
  if (nodes.empty()) return detection;
  std::map<std::string, std::size_t> count;
  for (const auto& node : nodes) {
    const json::object* allocatable = platform::NodeView(node).allocatable();
    if (allocatable == nullptr) continue;
    for (const auto& [resource, quantity] : *allocatable) {
      std::string_view name(resource);
      if (!name.starts_with(kGkeNetworkResourcePrefix)) continue;
      name.remove_prefix(kGkeNetworkResourcePrefix.size());
      if (name == "default" || name.ends_with(".IP")) continue;
      ++count[std::string(name)];
    }
  }
  for (const auto& [name, on] : count) {
    if (on == nodes.size()) detection.shared.push_back(name);  // map order: sorted
  }
  if (detection.shared.size() != kGkeTcpxoNicsPerNode) return detection;
  std::optional<std::vector<std::string>> order;
  for (const auto& node : nodes) {
    auto mine = host_nic_order(node, detection.shared);
    if (!mine || (order && *mine != *order)) {
      detection.names = detection.shared;
      return detection;
    }
    order = std::move(mine);
  }
  detection.names = std::move(*order);
  detection.host_ordered = true;
  return detection;
}

std::string gke_network_detection_message(const GkeNetworkDetection& detection) {
  const auto defaults = default_gke_tcpxo_networks();
  const std::string fallback = "rendering the default networks " + defaults.front() + ".." +
                               defaults.back() +
                               " instead; GKE rejects the pods unless Network objects with those "
                               "names exist";
  const std::string needs = std::to_string(kGkeTcpxoNicsPerNode);
  if (detection.shared.empty()) {
    return "GKE TCPXO network auto-detection found no " + std::string(kGkeNetworkResourcePrefix) +
           "* resource allocatable on every target node, but TCPXO needs " + needs +
           " GPU NIC networks per node (a3-megagpu-8g); " + fallback + ".";
  }
  return "GKE TCPXO network auto-detection found " + std::to_string(detection.shared.size()) +
         " networks allocatable on every target node (" + joined(detection.shared) +
         "), but TCPXO needs exactly " + needs + " GPU NIC networks per node (a3-megagpu-8g); " +
         fallback + ".";
}

std::optional<std::string> tcpxo_plugin_image_version(std::string_view image) {
  const std::string_view reference = image.substr(0, image.find('@'));
  std::string_view name = reference.substr(reference.rfind('/') + 1);
  std::string version;
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    version = std::string(name.substr(colon + 1));
    name = name.substr(0, colon);
  }
  if (name != kTcpxoPluginImageName) return std::nullopt;
  return version;
}

std::map<std::string, std::vector<std::string>> tcpxo_plugin_tags_by_node(
    std::span<const json::value* const> pods, const std::set<std::string>& nodes) {
  std::map<std::string, std::vector<std::string>> tags;
  for (const json::value* pod : pods) {
    const std::string node = jsonkit::string_at(*pod, {"spec", "nodeName"});
    if (!nodes.contains(node) || jsonkit::string_at(*pod, {"status", "phase"}) != "Running" ||
        !jsonkit::string_at(*pod, {"metadata", "deletionTimestamp"}).empty())
      continue;
    const json::object* spec = jsonkit::object_at(*pod, {"spec"});
    for (std::string_view field : {"initContainers", "containers"}) {
      const json::array* containers = spec ? jsonkit::find_array(*spec, {field}) : nullptr;
      if (containers == nullptr) continue;
      std::optional<std::string> version;
      for (const auto& container : *containers) {
        version = tcpxo_plugin_image_version(jsonkit::string_of(container.if_object(), "image"));
        if (version) break;
      }
      if (version) {
        tags[node].push_back(std::move(*version));
        break;
      }
    }
  }
  return tags;
}

std::map<std::string, std::vector<std::string>> cached_tcpxo_plugin_tags(
    const k8s::CacheView& cache, std::span<const json::value> nodes) {
  std::set<std::string> names;
  for (const auto& node : nodes) names.insert(std::string(platform::NodeView(node).name()));
  const auto pods = cache.list("v1", "Pod", kTcpxoInstallerNamespace);
  return tcpxo_plugin_tags_by_node(pods, names);
}

TcpxoPluginDetection detect_tcpxo_plugin_version(
    std::span<const std::string> nodes,
    const std::map<std::string, std::vector<std::string>>& tags_by_node) {
  TcpxoPluginDetection detection;
  detection.nodes = nodes.size();
  std::set<std::string> versions;
  for (const auto& node : nodes) {
    auto tags = tags_by_node.find(node);
    if (tags == tags_by_node.end()) {
      detection.missing.push_back(node);
      continue;
    }
    versions.insert(tags->second.begin(), tags->second.end());
  }
  std::sort(detection.missing.begin(), detection.missing.end());
  detection.versions.assign(versions.begin(), versions.end());
  if (nodes.empty() || !detection.missing.empty() || detection.versions.size() != 1)
    return detection;
  if (tcpxo_version_order(detection.versions.front())) {
    detection.version = detection.versions.front();
    detection.exact = tcpxo_profile_for(detection.version).exact;
  }
  return detection;
}

std::string tcpxo_plugin_detection_message(const TcpxoPluginDetection& detection) {
  const TcpxoProfile profile = tcpxo_profile_for(detection.version);
  const std::string& release = profile.release;
  const std::string images = "NCCL image " + profile.ncclImage + ", training image " +
                             profile.trainingImage + ", tcpxo-daemon " + profile.daemonImage;
  const std::string& found = detection.version;
  if (!found.empty()) {
    if (tcpxo_version_order(found).value_or(0) > 0) {
      return "TCPXO plugin version detection found plugin " + found +
             ", newer than the latest mapped release " + release + "; rendering the " + release +
             " images (" + images + "), which are not validated against " + found +
             ". If they fail, set categories[].options.image on the GCP H100 NCCL and training "
             "categories.";
    }
    return "TCPXO plugin version detection found plugin " + found +
           ", older than the minimum supported release " + release + "; rendering the " + release +
           " images (" + images +
           "). Upgrade the nccl-tcpxo-installer, or set categories[].options.image on the GCP "
           "H100 NCCL and training categories.";
  }
  std::string reason;
  const auto& versions = detection.versions;
  if (!detection.list_error.empty()) {
    reason = "could not list " + std::string(kTcpxoInstallerNamespace) +
             " pods: " + detection.list_error;
  } else if (detection.nodes == 0) {
    reason = "had no target nodes to read";
  } else if (!detection.missing.empty()) {
    reason = "found no running nccl-tcpxo-installer pod (image " +
             std::string(kTcpxoPluginImageName) + ") on " +
             std::to_string(detection.missing.size()) + " of " + std::to_string(detection.nodes) +
             " target nodes" + node_list_suffix(detection.missing);
  } else if (versions.size() > 1) {
    std::vector<std::string> shown;
    for (const auto& v : versions) shown.push_back(v.empty() ? "untagged" : v);
    reason = "found different plugin versions across the target nodes (" + joined(shown) + ")";
  } else if (versions.size() == 1 && versions.front().empty()) {
    reason = "found a " + std::string(kTcpxoPluginImageName) + " image with no version tag";
  } else if (versions.size() == 1) {
    reason = "found plugin tag \"" + versions.front() + "\", which is not a release version";
  } else {
    reason = "could not determine the plugin version";
  }
  return "TCPXO plugin version detection " + reason + "; rendering the images for " + release +
         ", the minimum supported release and the one AICR pins (" + images +
         "). If the plugin is v1.0.17 or later, set categories[].options.image to a CUDA 13 "
         "image on the GCP H100 NCCL and training categories.";
}

}  // namespace nvcre::catalog
