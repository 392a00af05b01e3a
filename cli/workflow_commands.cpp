#include "cli/workflow_commands.hpp"

#include <boost/json.hpp>

#include <ostream>
#include <stdexcept>

#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "cli/read_file.hpp"
#include "platform/detect.hpp"
#include "platform/gang_scheduling.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"
#include "overrides/overrides.hpp"
#include "workflow/workflow_document.hpp"

namespace nvcre::cli {
namespace json = boost::json;

namespace {

std::string available_pairs() {
  std::string list;
  for (auto platform_name : platform::kPlatformNames) {
    for (auto arch : platform::known_gpu_architectures()) {
      if (!list.empty()) list += ", ";
      list += std::string(platform_name) + "-" + std::string(arch);
    }
  }
  return list;
}

// A product label that parse_gpu_product maps back to `arch` ("h100" -> "NVIDIA-H100").
std::string product_label_for(std::string_view arch) {
  if (arch == "rtxpro6000") return "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition";
  std::string product = "NVIDIA-";
  for (char c : arch) product += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return product;
}

std::vector<json::value> node_context(const WorkflowRenderOptions& options) {
  const bool mock = !options.platform.empty() || !options.gpu_arch.empty();
  if (!options.nodes_file.empty() && mock) {
    throw std::invalid_argument("--nodes-file and --platform/--gpu-arch are mutually exclusive");
  }
  if (!options.nodes_file.empty()) return read_nodes_file(options.nodes_file);
  if (options.platform.empty() || options.gpu_arch.empty()) {
    throw std::invalid_argument(
        "specify --nodes-file <path> or --platform + --gpu-arch\navailable: " + available_pairs());
  }
  return mock_nodes(options.platform, options.gpu_arch);
}

}  // namespace

std::vector<json::value> mock_nodes(const std::string& platform_name,
                                    const std::string& gpu_architecture) {
  if (!platform::is_platform_name(platform_name) ||
      !platform::is_known_gpu_architecture(gpu_architecture)) {
    throw std::invalid_argument("no mock nodes for " + platform_name + "-" + gpu_architecture +
                                "\navailable: " + available_pairs());
  }
  std::vector<json::value> nodes;
  for (int i = 0; i < 2; ++i) {
    const std::string hostname =
        platform_name + "-" + gpu_architecture + "-node-" + std::to_string(i);
    std::map<std::string, std::string> labels = {
        {"nvidia.com/gpu.present", "true"},
        {std::string(platform::kGpuProductLabel), product_label_for(gpu_architecture)},
        {std::string(platform::kHostnameLabel), hostname}};
    if (platform::default_enable_mnnvl(gpu_architecture))
      labels["nvidia.com/gpu.clique"] = "mock-clique.0";
    json::value node = platform::synthetic_node(labels, platform_name);
    auto& object = node.as_object();
    object["metadata"].as_object()["name"] = hostname;
    const auto gpus = platform::gpu_defaults(gpu_architecture, platform_name).gpusPerNode;
    object["status"].emplace_object()["allocatable"].emplace_object()["nvidia.com/gpu"] =
        std::to_string(gpus);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<json::value> read_nodes_file(const std::string& path) {
  std::vector<json::value> documents;
  try {
    documents = jsonkit::parse_yaml_documents(read_text_file(path));
  } catch (const std::exception& error) {
    throw std::runtime_error("reading " + path + ": " + error.what());
  }
  std::vector<json::value> nodes;
  auto take = [&](const json::value& item) {
    const auto* object = item.if_object();
    const auto* kind = object ? object->if_contains("kind") : nullptr;
    if (kind && kind->is_string() &&
        (kind->get_string() == "List" || kind->get_string() == "NodeList")) {
      const auto* items = object->if_contains("items");
      if (items && items->is_array())
        nodes.insert(nodes.end(), items->get_array().begin(), items->get_array().end());
      return;
    }
    if (!kind || kind->get_string() != "Node") {
      throw std::runtime_error("reading " + path + ": expected Node objects, got " +
                               (kind && kind->is_string()
                                    ? "kind \"" + std::string(kind->get_string()) + "\""
                                    : std::string("an object without a kind")));
    }
    nodes.push_back(item);
  };
  for (const auto& document : documents) {
    if (document.is_array()) {
      for (const auto& item : document.get_array()) take(item);
    } else {
      take(document);
    }
  }
  if (nodes.empty()) throw std::runtime_error("reading " + path + ": no Node objects in the file");
  return nodes;
}

void render_workflow(const WorkflowRenderOptions& options, std::ostream& out) {
  if (options.output != "yaml" && options.output != "json") {
    throw std::invalid_argument("invalid --output \"" + options.output +
                                "\": must be yaml or json");
  }
  const auto nodes = node_context(options);
  std::string text;
  try {
    text = read_text_file(options.file);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("read workflow: ") + error.what());
  }
  api::Workflow workflow;
  try {
    workflow = api::decode_object<api::Workflow>(jsonkit::parse_yaml(text));
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("parse workflow: ") + error.what());
  }
  if (workflow.metadata.namespace_.empty()) workflow.metadata.namespace_ = "default";

  const std::string detected_platform = platform::detect_platform(nodes);
  std::string arch = platform::majority_gpu_architecture(nodes);
  if (arch.empty()) arch = std::string(platform::kUnknownArchitecture);
  const auto& topology = workflow.spec.orchestration.topology;
  const auto context = overrides::match_context_for(
      workflow.spec, detected_platform, arch,
      topology ? platform::count_topology_domains(topology->topologyKey, nodes) : 0);
  auto resolved = overrides::resolve_overrides(workflow.spec, context);
  workflow.spec = std::move(resolved.spec);
  workflow.spec.overrides.clear();
  // What the Workflow controller refuses after these overrides is refused here too.
  if (auto problem = workflow::placement_problem(workflow.spec.orchestration,
                                                 workflow.spec.orchestration.placement);
      !problem.empty()) {
    throw std::runtime_error(problem);
  }
  platform::apply_gang_scheduler_to_dependencies(workflow.spec.dependencies,
                                                 workflow.spec.gangScheduler);

  auto& annotations = workflow.metadata.annotations;
  annotations["nvcrectl.nvidia.com/detected-platform"] = detected_platform;
  annotations["nvcrectl.nvidia.com/detected-gpu-architecture"] = arch;
  annotations["nvcrectl.nvidia.com/applied-overrides"] =
      json::serialize(api::encode(resolved.applied));
  const json::value encoded = api::encode_object(workflow);
  out << (options.output == "json" ? jsonkit::to_pretty_json(encoded) : jsonkit::to_yaml(encoded));
}

}  // namespace nvcre::cli
