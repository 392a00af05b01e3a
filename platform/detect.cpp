#include "platform/detect.hpp"

#include "jsonkit/paths.hpp"

#include "platform/platform_names.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace nvcre::platform {
namespace json = boost::json;

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string to_upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

// The architecture a node votes for in the majority, or "" when it does not vote.
std::string voting_architecture(const json::value& node) {
  auto product = NodeView(node).label(kGpuProductLabel);
  return product ? parse_gpu_product(*product) : std::string();
}

}  // namespace

NodeView::NodeView(const json::value& node) : node_(node.if_object()) {}

std::string_view NodeView::name() const {
  return jsonkit::view_of(jsonkit::find_object(node_, {"metadata"}), "name");
}

std::string_view NodeView::provider_id() const {
  return jsonkit::view_of(jsonkit::find_object(node_, {"spec"}), "providerID");
}

std::optional<std::string_view> NodeView::label(std::string_view key) const {
  const json::object* labels = jsonkit::find_object(node_, {"metadata", "labels"});
  if (labels == nullptr) return std::nullopt;
  const json::value* value = labels->if_contains(key);
  if (value == nullptr) return std::nullopt;
  // Label values are strings; anything else (a hand-written fixture) counts as present but empty.
  return value->is_string() ? std::string_view(value->get_string()) : std::string_view();
}

const json::object* NodeView::allocatable() const {
  return jsonkit::find_object(node_, {"status", "allocatable"});
}

bool NodeView::has_allocatable(std::string_view resource) const {
  const json::object* resources = allocatable();
  return resources != nullptr && resources->contains(resource);
}

std::string detect_node_platform(const json::value& node) {
  const NodeView view(node);
  const std::string_view provider = view.provider_id();
  // Rules in the reference's order; the first match wins.
  if (provider.empty()) {
    auto hostname = view.label(kHostnameLabel);
    if (hostname && hostname->find("forge") != std::string_view::npos) return std::string(kForge);
    if (view.has_label(kForgeSiteLabel)) return std::string(kForge);
    return std::string(kOnPrem);
  }
  if (starts_with(provider, "aws://")) return std::string(kAws);
  if (starts_with(provider, "gce://")) return std::string(kGcp);
  if (starts_with(provider, "azure://")) return std::string(kAzure);
  if (starts_with(provider, "ocid1.")) return std::string(kOci);
  if (starts_with(provider, "openstack://")) {
    // Plain OpenStack clouds are on-prem; nscale is the one that advertises rdmashare.
    return std::string(view.has_allocatable(kNScaleRdmaShareResource) ? kNScale : kOnPrem);
  }
  if (starts_with(provider, "kubevirt://")) {
    return std::string(view.has_label(kTogetherAiWorkerLabel) ? kTogetherAi : kOnPrem);
  }
  if (starts_with(provider, "metal3://")) return std::string(kMistral);
  return std::string(kOnPrem);
}

std::string detect_platform(std::span<const json::value> nodes) {
  if (nodes.empty()) return std::string(kOnPrem);
  return detect_node_platform(nodes.front());
}

ConsistentPlatform detect_platform_consistent(std::span<const json::value> nodes) {
  if (nodes.empty()) return {std::string(kOnPrem), {}};
  std::map<std::string, int> counts;  // sorted, like Go's fmt of a map
  for (const auto& node : nodes) ++counts[detect_node_platform(node)];
  if (counts.size() == 1) return {counts.begin()->first, {}};
  std::string rendered = "map[";
  bool first = true;
  for (const auto& [platform, count] : counts) {
    if (!first) rendered += ' ';
    first = false;
    rendered += platform + ":" + std::to_string(count);
  }
  rendered += "]";
  return {{}, "heterogeneous platforms detected: " + rendered};
}

std::string parse_gpu_product(std::string_view product) {
  if (product.empty()) return {};
  // GFD labels separate words with hyphens ("NVIDIA-GB300"); the DRA driver's ResourceSlice
  // productName attribute and --gpu-arch accept the device name with spaces ("NVIDIA GB300").
  for (std::string_view prefix : {std::string_view("NVIDIA-"), std::string_view("NVIDIA ")}) {
    if (starts_with(product, prefix)) product.remove_prefix(prefix.size());
  }
  // RTX PRO 6000 products have separators inside the model name, so the first word is not enough.
  std::string hyphenated(product);
  std::replace(hyphenated.begin(), hyphenated.end(), ' ', '-');
  if (starts_with(to_upper(hyphenated), "RTX-PRO-6000")) return "rtxpro6000";
  const auto separator = product.find_first_of("- ");
  if (separator != std::string_view::npos && separator > 0) product = product.substr(0, separator);
  return to_lower(product);
}

std::string node_gpu_architecture(const json::value& node) {
  std::string architecture = voting_architecture(node);
  return architecture.empty() ? std::string(kUnknownArchitecture) : architecture;
}

std::string majority_vote(std::span<const std::string> votes) {
  std::map<std::string, int> counts;
  std::vector<std::string> first_seen_order;
  for (const auto& vote : votes) {
    if (vote.empty()) continue;
    if (counts[vote]++ == 0) first_seen_order.push_back(vote);
  }
  std::string best;
  int best_count = 0;
  // Strictly greater: a vote seen later never displaces an equally common earlier one.
  for (const auto& candidate : first_seen_order) {
    if (counts[candidate] > best_count) {
      best = candidate;
      best_count = counts[candidate];
    }
  }
  return best;
}

std::string majority_gpu_architecture(std::span<const json::value> nodes) {
  std::vector<std::string> votes;
  votes.reserve(nodes.size());
  for (const auto& node : nodes) votes.push_back(voting_architecture(node));
  return majority_vote(votes);
}

std::int64_t count_topology_domains(std::string_view topology_key,
                                    std::span<const json::value> nodes) {
  if (topology_key.empty()) return 0;
  std::set<std::string_view> domains;
  for (const auto& node : nodes) {
    auto value = NodeView(node).label(topology_key);
    if (value && !value->empty()) domains.insert(*value);
  }
  return static_cast<std::int64_t>(domains.size());
}

ArchitectureSelection select_primary_architecture(std::span<const ArchitectureVote> votes) {
  std::vector<std::string> ballots;
  ballots.reserve(votes.size());
  for (const auto& vote : votes) ballots.push_back(vote.vote);
  ArchitectureSelection selection;
  selection.architecture = majority_vote(ballots);
  if (selection.architecture.empty()) selection.architecture = std::string(kUnknownArchitecture);
  for (const auto& vote : votes) {
    const std::string& architecture =
        vote.vote.empty() ? std::string(kUnknownArchitecture) : vote.vote;
    (architecture == selection.architecture ? selection.kept : selection.excluded)
        .push_back(vote.node);
  }
  return selection;
}

ArchitectureSelection select_primary_architecture(std::span<const json::value> nodes) {
  std::vector<ArchitectureVote> votes;
  votes.reserve(nodes.size());
  for (const auto& node : nodes)
    votes.push_back({std::string(NodeView(node).name()), voting_architecture(node)});
  return select_primary_architecture(std::span<const ArchitectureVote>(votes));
}

std::string fake_provider_id(std::string_view platform) {
  validate_platform_flag(platform);
  if (platform == kAws) return "aws:///us-east-1a/i-0000000000000000";
  if (platform == kGcp) return "gce://nvcre-offline/us-central1-a/nvcre-offline-node";
  if (platform == kAzure) {
    return "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
           "nvcre-offline"
           "/providers/Microsoft.Compute/virtualMachines/nvcre-offline-node";
  }
  if (platform == kOci) return "ocid1.instance.oc1.iad.nvcreoffline";
  if (platform == kNScale) return "openstack:///00000000-0000-0000-0000-000000000000";
  if (platform == kTogetherAi) return "kubevirt://nvcre-offline/nvcre-offline-node";
  if (platform == kMistral) return "metal3://nvcre-offline/nvcre-offline-node";
  // Any unrecognised scheme is onprem. An empty ID would also be, unless the nodeSelector's
  // hostname happened to contain "forge"; this one cannot be misread.
  if (platform == kOnPrem) return "baremetal://nvcre-offline/nvcre-offline-node";
  return {};  // forge (recognised by its site label) and "": no provider ID
}

boost::json::value synthetic_node(const std::map<std::string, std::string>& node_selector,
                                  std::string_view platform) {
  const std::string provider_id = fake_provider_id(platform);
  json::object labels;
  for (const auto& [key, value] : node_selector) labels[key] = value;
  json::object node{{"apiVersion", "v1"}, {"kind", "Node"}};
  if (platform == kTogetherAi) labels[kTogetherAiWorkerLabel] = "";
  // Forge is marked by its site label rather than a "forge" hostname, so a nodeSelector that pins
  // kubernetes.io/hostname keeps its value.
  if (platform == kForge) labels[kForgeSiteLabel] = "nvcre-offline";
  node["metadata"] = json::object{{"name", "nvcre-offline-node"}, {"labels", std::move(labels)}};
  if (!provider_id.empty()) node["spec"] = json::object{{"providerID", provider_id}};
  if (platform == kNScale) {
    node["status"] = json::object{{"allocatable", json::object{{kNScaleRdmaShareResource, "1"}}}};
  }
  return node;
}

}  // namespace nvcre::platform
