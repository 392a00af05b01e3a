#include "certification/category_resolution.hpp"

#include <algorithm>

#include "catalog/tcpxo_detect.hpp"
#include "certification/options.hpp"
#include "platform/gpu_defaults.hpp"
#include "workflow/node_discovery.hpp"
#include "overrides/overrides.hpp"

namespace nvcre::certification {
namespace json = boost::json;

namespace {

constexpr std::string_view kCategoryNotFound = "CategoryNotFound";
constexpr std::string_view kWorkflowValidationFailed = "WorkflowValidationFailed";

// The product label of the target's nodeSelector, parsed ("" when absent).
std::optional<std::string> selector_architecture(const api::Certification& certification) {
  const auto& selector = certification.spec.target.nodeSelector;
  auto product = selector.find(std::string(platform::kGpuProductLabel));
  if (product == selector.end()) return std::nullopt;
  return platform::parse_gpu_product(product->second);
}

// The node count the controller can run: primary-architecture nodes able to
// supply gpusPerNode, capped by nodesPerJob, lowered to what the model allows.
std::int32_t controller_nodes_per_job(const std::string& key, const catalog::Entry& entry,
                                      const api::CategoryOptions& options,
                                      const std::string& architecture,
                                      const std::vector<json::value>& arch_nodes,
                                      std::int32_t gpus_per_node) {
  const auto capacity = workflow::filter_by_gpu_capacity(arch_nodes, gpus_per_node);
  if (capacity.kept.empty()) {
    std::int64_t best = 0;
    for (const auto& excluded : capacity.excluded) best = std::max(best, excluded.allocatable);
    throw CategoryBuildError(
        std::string(kWorkflowValidationFailed),
        key + ": no node can supply the " + std::to_string(gpus_per_node) +
            " nvidia.com/gpu the workload requests per node; best available is " +
            std::to_string(best) + " across " + std::to_string(capacity.excluded.size()) +
            " matching node(s). Lower gpusPerNode or target nodes with more GPUs");
  }
  const auto available = static_cast<std::int32_t>(capacity.kept.size());
  const std::int32_t ceiling =
      options.nodesPerJob ? std::min(*options.nodesPerJob, available) : available;
  const std::int32_t nodes_per_job = entry.max_valid_nodes(ceiling, gpus_per_node, architecture);
  if (nodes_per_job == 0) {
    throw CategoryBuildError(std::string(kWorkflowValidationFailed),
                             key + ": no valid node count <= " + std::to_string(ceiling) +
                                 " satisfies model constraints (gpusPerNode=" +
                                 std::to_string(gpus_per_node) + ", arch=" + architecture + ")");
  }
  return nodes_per_job;
}

// GCP H100: the GKE networks and the TCPXO plugin release of the nodes that will run the job;
// a fallback to the catalog defaults is said in a Warning.
void detect_tcpxo_facts(const std::string& key, const std::vector<json::value>& capable,
                        const platform::DetectionFacts& facts, catalog::BuildConfig& config,
                        std::vector<BuildEvent>& events) {
  const auto networks = catalog::detect_gke_tcpxo_networks(capable);
  config.gke_tcpxo_networks = networks.names;
  if (networks.names.empty()) {
    events.push_back({"Warning", std::string(api::certification_event::kGKENetworkDetection),
                      key + ": " + catalog::gke_network_detection_message(networks)});
  }
  std::vector<std::string> names;
  for (const auto& node : capable) names.emplace_back(platform::NodeView(node).name());
  const auto plugin = catalog::detect_tcpxo_plugin_version(names, facts.tcpxo_plugin_tags);
  config.tcpxo_plugin_version = plugin.version;
  if (!plugin.exact) {
    events.push_back({"Warning", std::string(api::certification_event::kTCPXOPluginDetection),
                      key + ": " + catalog::tcpxo_plugin_detection_message(plugin)});
  }
}

}  // namespace

const catalog::Entry& lookup_category_entry(const catalog::Catalog& catalog,
                                            const api::CertificateCategory& category) {
  const catalog::Entry* entry = catalog.lookup(category.domain, category.variant);
  if (entry == nullptr) {
    throw CategoryBuildError(
        std::string(kCategoryNotFound),
        "unknown certification category: " + category.domain + "/" + category.variant);
  }
  return *entry;
}

std::string requested_or_detected_architecture(const api::Certification& certification,
                                               const platform::DetectionFacts& facts,
                                               const std::string& requested) {
  if (!requested.empty()) return requested;
  const std::string& detected = facts.majority_architecture;
  if (!detected.empty() && detected != platform::kUnknownArchitecture) return detected;
  if (auto from_selector = selector_architecture(certification)) return *from_selector;
  return detected;
}

std::string target_architecture(const api::Certification& certification,
                                const platform::DetectionFacts& facts) {
  const std::string& primary = facts.selection.architecture;
  if (!primary.empty() && primary != platform::kUnknownArchitecture) return primary;
  return selector_architecture(certification).value_or(std::string());
}

catalog::BuildConfig category_build_config(const std::string& key, const catalog::Entry& entry,
                                           const api::CategoryOptions& options,
                                           const std::string& architecture,
                                           const platform::DetectionFacts& facts, bool offline,
                                           std::vector<BuildEvent>& events) {
  const auto defaults = platform::gpu_defaults(architecture, facts.platform);
  catalog::BuildConfig config;
  config.gpu_architecture = architecture;
  config.options = options;
  config.gpus_per_node = options.gpusPerNode.value_or(defaults.gpusPerNode);
  config.mlnx_per_node = options.mlnxPerNode.value_or(defaults.mlnxPerNode);
  config.enable_mnnvl = options.enableMNNVL.value_or(platform::default_enable_mnnvl(architecture));
  if (auto message = platform::gpu_arch_fallback_message(
          architecture, config.gpus_per_node, config.mlnx_per_node,
          platform::kGpuArchFieldHintCertification)) {
    events.push_back({"Warning", "GPUArchitectureDefaults", key + ": " + *message});
  }
  // The controller sizes the job against the nodes that will run it: those
  // of the primary architecture, then only those that can supply gpusPerNode.
  const std::vector<json::value> arch_nodes =
      offline ? facts.nodes : facts.primary_architecture_nodes();
  const auto nic =
      platform::detect_nic_resource_name(options.nicResourceName.value_or(""), facts.platform,
                                         architecture, config.mlnx_per_node, arch_nodes);
  config.nic_resource_name = nic.resourceName;
  if (!nic.message.empty())
    events.push_back({"Normal", "NICResourceDetection", key + ": " + nic.message});
  config.nodes_per_job = offline ? options.nodesPerJob.value_or(1)
                                 : controller_nodes_per_job(key, entry, options, architecture,
                                                            arch_nodes, config.gpus_per_node);
  if (!offline && catalog::is_gcp_h100(facts.platform, architecture)) {
    detect_tcpxo_facts(key, workflow::filter_by_gpu_capacity(arch_nodes, config.gpus_per_node).kept,
                       facts, config, events);
  }
  return config;
}

void build_and_resolve_overrides(ResolvedCategory& resolved, const catalog::Entry& entry,
                                 const api::Certification& certification,
                                 const catalog::BuildConfig& config,
                                 const platform::DetectionFacts& facts, bool offline) {
  api::WorkflowSpec spec = entry.build(certification.spec.target, config);
  const std::int64_t domains =
      spec.orchestration.topology
          ? platform::count_topology_domains(spec.orchestration.topology->topologyKey, facts.nodes)
          : 0;
  auto context =
      overrides::match_context_for(spec, resolved.platform, resolved.gpu_architecture, domains);
  auto outcome = overrides::resolve_overrides(spec, context);
  resolved.applied_overrides = std::move(outcome.applied);
  resolved.spec = std::move(outcome.spec);
  resolved.spec.overrides = offline
                                ? std::vector<api::OverrideSpec>{}
                                : overrides::pending_overrides(resolved.spec.overrides,
                                                               resolved.applied_overrides, context);
}

ResolvedCategory resolve_category(const api::Certification& certification,
                                  const api::CertificateCategory& category,
                                  const platform::DetectionFacts& facts,
                                  const std::string& architecture, bool offline,
                                  const catalog::Catalog& catalog) {
  const catalog::Entry& entry = lookup_category_entry(catalog, category);
  ResolvedCategory resolved;
  resolved.category = category;
  resolved.platform = facts.platform;
  resolved.gpu_architecture = architecture;
  resolved.options = resolved_options(certification.spec, category);
  const std::string key = resolved.key();
  try {
    const auto config = category_build_config(key, entry, resolved.options, architecture, facts,
                                              offline, resolved.events);
    build_and_resolve_overrides(resolved, entry, certification, config, facts, offline);
  } catch (const CategoryBuildError&) {
    throw;
  } catch (const std::exception& error) {
    throw CategoryBuildError(std::string(kWorkflowValidationFailed),
                             "building workflow for " + key + ": " + error.what());
  }
  return resolved;
}

ResolvedCategory resolve_target_category(const api::Certification& certification,
                                         const api::CertificateCategory& category,
                                         const platform::DetectionFacts& facts,
                                         const catalog::Catalog& catalog) {
  const std::string architecture = target_architecture(certification, facts);
  if (architecture.empty()) {
    throw CategoryBuildError(
        std::string(kWorkflowValidationFailed),
        "cannot determine GPU architecture from target nodeSelector (nvidia.com/gpu.product "
        "label is required)");
  }
  return resolve_category(certification, category, facts, architecture, false, catalog);
}

}  // namespace nvcre::certification
