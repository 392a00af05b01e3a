#include "certification/build.hpp"

#include <algorithm>

#include "certification/naming.hpp"
#include "certification/options.hpp"
#include "certification/transforms.hpp"
#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "workflow/node_discovery.hpp"
#include "workflow/overrides.hpp"

namespace nvcre::certification {
namespace json = boost::json;

namespace {

constexpr std::string_view kCategoryNotFound = "CategoryNotFound";
constexpr std::string_view kWorkflowValidationFailed = "WorkflowValidationFailed";
constexpr std::string_view kProductLabel = "nvidia.com/gpu.product";

std::string architecture_of(const api::Certification& certification, const BuildInput& input) {
  if (!input.gpu_architecture.empty()) return input.gpu_architecture;
  std::string detected = platform::majority_gpu_architecture(input.nodes);
  if (!detected.empty() && detected != "unknown") return detected;
  const auto& selector = certification.spec.target.nodeSelector;
  auto product = selector.find(std::string(kProductLabel));
  if (product != selector.end()) return platform::parse_gpu_product(product->second);
  return detected;
}

// detectGPUArchConsistent's kept nodes; every node when no node carries a product label.
std::vector<json::value> primary_architecture_nodes(const std::vector<json::value>& nodes) {
  const auto selection = platform::select_primary_architecture(nodes);
  if (selection.architecture.empty() || selection.architecture == platform::kUnknownArchitecture) return nodes;
  std::vector<json::value> kept;
  for (const auto& node : nodes) {
    const auto name = platform::NodeView(node).name();
    if (std::find(selection.kept.begin(), selection.kept.end(), name) != selection.kept.end()) kept.push_back(node);
  }
  return kept;
}

catalog::BuildConfig build_config(const std::string& key, const catalog::Entry& entry, const api::CategoryOptions& options,
                                  const std::string& arch, const std::string& detected_platform,
                                  const BuildInput& input, std::vector<BuildEvent>& events) {
  const auto defaults = platform::gpu_defaults(arch, detected_platform);
  catalog::BuildConfig config;
  config.gpu_architecture = arch;
  config.options = options;
  config.gpus_per_node = options.gpusPerNode.value_or(defaults.gpusPerNode);
  config.mlnx_per_node = options.mlnxPerNode.value_or(defaults.mlnxPerNode);
  config.enable_mnnvl = options.enableMNNVL.value_or(platform::default_enable_mnnvl(arch));
  if (auto message = platform::gpu_arch_fallback_message(arch)) {
    events.push_back({"Warning", "GPUArchitectureDefaults", key + ": " + *message});
  }
  // The controller sizes the job against the nodes that will run it (§4.5 steps 3, 6, 7): those
  // of the primary architecture, then only those that can supply gpusPerNode.
  const std::vector<json::value> arch_nodes = input.offline ? input.nodes : primary_architecture_nodes(input.nodes);
  const auto nic = platform::detect_nic_resource_name(options.nicResourceName.value_or(""), detected_platform, arch,
                                                      config.mlnx_per_node, arch_nodes);
  config.nic_resource_name = nic.resourceName;
  if (!nic.message.empty()) events.push_back({"Normal", "NICResourceDetection", key + ": " + nic.message});
  if (input.offline) {
    config.nodes_per_job = options.nodesPerJob.value_or(1);
  } else {
    const auto capacity = workflow::filter_by_gpu_capacity(arch_nodes, config.gpus_per_node);
    if (capacity.kept.empty()) {
      std::int64_t best = 0;
      for (const auto& excluded : capacity.excluded) best = std::max(best, excluded.allocatable);
      throw CategoryBuildError(std::string(kWorkflowValidationFailed),
                               key + ": no node can supply the " + std::to_string(config.gpus_per_node) +
                                   " nvidia.com/gpu the workload requests per node; best available is " +
                                   std::to_string(best) + " across " + std::to_string(capacity.excluded.size()) +
                                   " matching node(s). Lower gpusPerNode or target nodes with more GPUs");
    }
    const auto available = static_cast<std::int32_t>(capacity.kept.size());
    const std::int32_t ceiling = options.nodesPerJob ? std::min(*options.nodesPerJob, available) : available;
    config.nodes_per_job = entry.max_valid_nodes(ceiling, config.gpus_per_node, arch);
    if (config.nodes_per_job == 0) {
      throw CategoryBuildError(std::string(kWorkflowValidationFailed),
                               key + ": no valid node count <= " + std::to_string(ceiling) +
                                   " satisfies model constraints (gpusPerNode=" + std::to_string(config.gpus_per_node) +
                                   ", arch=" + arch + ")");
    }
  }
  return config;
}

}  // namespace

CategoryBuild build_category_workflow(const api::Certification& certification,
                                      const api::CertificateCategory& category, const BuildInput& input,
                                      const catalog::Catalog& catalog) {
  const std::string key = category.domain + "/" + category.variant;
  const catalog::Entry* entry = catalog.lookup(category.domain, category.variant);
  if (entry == nullptr) {
    throw CategoryBuildError(std::string(kCategoryNotFound), "unknown certification category: " + key);
  }
  CategoryBuild result;
  result.platform = platform::detect_platform(input.nodes);
  result.gpu_architecture = architecture_of(certification, input);
  const api::CategoryOptions options = resolved_options(certification.spec, category);

  api::WorkflowSpec spec;
  try {
    const auto config = build_config(key, *entry, options, result.gpu_architecture, result.platform, input,
                                     result.events);
    spec = entry->build(certification.spec.target, config);
    auto context = workflow::match_context_for(spec, result.platform, result.gpu_architecture,
                                               spec.orchestration.topology ? platform::count_topology_domains(
                                                   spec.orchestration.topology->topologyKey, input.nodes)
                                                             : 0);
    auto resolved = workflow::resolve_overrides(spec, context);
    result.applied_overrides = std::move(resolved.applied);
    spec = std::move(resolved.spec);
    spec.overrides = input.offline ? std::vector<api::OverrideSpec>{}
                                   : workflow::pending_overrides(spec.overrides, result.applied_overrides, context);
  } catch (const CategoryBuildError&) {
    throw;
  } catch (const std::exception& error) {
    throw CategoryBuildError(std::string(kWorkflowValidationFailed),
                             "building workflow for " + key + ": " + error.what());
  }
  try {
    apply_resolved_transforms(spec, options, certification.spec.gangScheduler);
  } catch (const TransformError& error) {
    throw CategoryBuildError(error.reason, key + ": " + error.what());
  }

  api::Workflow& workflow = result.workflow;
  workflow.apiVersion = std::string(api::kApiVersion);
  workflow.kind = std::string(api::Workflow::kKind);
  workflow.metadata.name = workflow_name(certification.metadata.name, category);
  workflow.metadata.namespace_ = certification.metadata.namespace_;
  workflow.metadata.labels = workflow_labels(certification.metadata.name, category);
  workflow.metadata.annotations = workflow_annotations(options.testScale);
  if (!certification.metadata.uid.empty()) {
    workflow.metadata.ownerReferences.push_back({std::string(api::kApiVersion),
                                                 std::string(api::Certification::kKind),
                                                 certification.metadata.name, certification.metadata.uid, true, true});
  }
  workflow.spec = std::move(spec);
  return result;
}

}  // namespace nvcre::certification
