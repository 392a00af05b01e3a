#include "cli/workloadrun_commands.hpp"

#include <boost/json.hpp>

#include <ostream>
#include <stdexcept>

#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "cli/read_file.hpp"
#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"
#include "workloadrun/build.hpp"

namespace nvcre::cli {
namespace json = boost::json;

api::WorkloadRun read_workloadrun(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const std::exception& error) {
    throw std::runtime_error("reading " + path + ": " + error.what());
  }
  json::value document;
  try {
    document = jsonkit::parse_yaml(text);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("parsing WorkloadRun: ") + error.what());
  }
  if (const auto* object = document.if_object()) {
    const auto* kind = object->if_contains("kind");
    const std::string got =
        kind && kind->is_string() ? std::string(kind->get_string()) : std::string();
    if (got != api::WorkloadRun::kKind) {
      throw std::runtime_error("expected kind WorkloadRun, got " + workloadrun::go_quote(got));
    }
  }
  try {
    return api::decode_object<api::WorkloadRun>(document);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("parsing WorkloadRun: ") + error.what());
  }
}

namespace {

std::string offline_architecture(const api::WorkloadRun& run, const std::string& flag) {
  const std::string from_flag = platform::parse_gpu_arch_flag(flag);
  if (!from_flag.empty()) return from_flag;
  std::string arch;
  if (run.spec.target) {
    const auto& selector = run.spec.target->nodeSelector;
    auto product = selector.find(std::string(platform::kGpuProductLabel));
    if (product != selector.end()) arch = platform::parse_gpu_product(product->second);
  }
  if (arch.empty()) {
    throw std::runtime_error(
        "cannot determine GPU architecture: nvidia.com/gpu.product label required in "
        "target.nodeSelector "
        "(or pass --gpu-arch)");
  }
  return arch;
}

}  // namespace

api::WorkloadRun load_workloadrun_for_render(const WorkloadRunRenderOptions& options) {
  platform::validate_platform_flag(options.platform);  // before the file is read
  if (options.output != "yaml" && options.output != "json") {
    throw std::invalid_argument("invalid --output \"" + options.output +
                                "\": must be yaml or json");
  }
  api::WorkloadRun run = read_workloadrun(options.file);
  if (run.metadata.namespace_.empty()) run.metadata.namespace_ = "default";
  return run;
}

void render_workloadrun(const WorkloadRunRenderOptions& options, std::ostream& out) {
  api::WorkloadRun run = load_workloadrun_for_render(options);
  workloadrun::BuildInput input;
  input.offline = true;
  input.gpu_architecture = offline_architecture(run, options.gpu_arch);
  const std::map<std::string, std::string> no_selector;
  input.nodes.push_back(platform::synthetic_node(
      run.spec.target ? run.spec.target->nodeSelector : no_selector, options.platform));

  auto build = workloadrun::build_workloadrun_workflow(run, input);
  auto& annotations = build.workflow.metadata.annotations;
  annotations["nvcrectl.nvidia.com/detected-gpu-architecture"] = build.gpu_architecture;
  annotations["nvcrectl.nvidia.com/detected-platform"] = build.platform;
  const json::value rendered = api::encode_object(build.workflow);
  out << (options.output == "json" ? jsonkit::to_pretty_json(rendered)
                                   : jsonkit::to_yaml(rendered));
}

}  // namespace nvcre::cli
