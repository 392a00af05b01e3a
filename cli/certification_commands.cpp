#include "cli/certification_commands.hpp"

#include <boost/json.hpp>

#include <iomanip>
#include <ostream>
#include <stdexcept>

#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "catalog/catalog.hpp"
#include "cel/go_format.hpp"
#include "certification/build.hpp"
#include "cli/read_file.hpp"
#include "platform/detect.hpp"
#include "platform/gpu_defaults.hpp"
#include "platform/platform_names.hpp"

namespace nvcre::cli {
namespace json = boost::json;

namespace {

// The threshold registry, in the order the reference prints it.
constexpr std::string_view kThresholdKeys[] = {"busBandwidthGBps", "algBandwidthGBps",
                                               "goodputRatio", "avgTFLOPsPerGPU", "avgStepTimeSec"};

std::string bracketed(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  return text + "]";
}

}  // namespace

api::Certification read_certification(const std::string& path) {
  std::string text;
  try {
    text = read_text_file(path);
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("read certification: ") + error.what());
  }
  try {
    return api::decode_object<api::Certification>(jsonkit::parse_yaml(text));
  } catch (const std::exception& error) {
    throw std::runtime_error(std::string("parse certification: ") + error.what());
  }
}

// "" for unset or a known access model; else the message naming the value and the valid ones.
std::string rdma_device_access_message(const std::string& value) {
  if (value.empty() || value == api::rdma_device_access::kHostPath ||
      value == api::rdma_device_access::kDevicePlugin)
    return {};
  return "invalid rdmaDeviceAccess " + cel::quote_go_string(value) + "; valid values: " +
         bracketed({std::string(api::rdma_device_access::kHostPath),
                    std::string(api::rdma_device_access::kDevicePlugin)});
}

// Options nothing later would catch before rendering: unknown threshold keys (never measured)
// and an unknown rdmaDeviceAccess (silently rendered as device-plugin access otherwise).
void check_options(const api::Certification& certification) {
  const std::string& name = certification.metadata.name;
  for (const auto& message :
       {unknown_threshold_keys_message(certification.spec.options.thresholds),
        rdma_device_access_message(certification.spec.options.rdmaDeviceAccess)}) {
    if (!message.empty()) throw std::runtime_error("certification " + name + ": " + message);
  }
  for (const auto& category : certification.spec.categories) {
    if (!category.options) continue;
    for (const auto& message : {unknown_threshold_keys_message(category.options->thresholds),
                                rdma_device_access_message(category.options->rdmaDeviceAccess)}) {
      if (!message.empty()) {
        throw std::runtime_error("certification " + name + ": category " + category.domain + "/" +
                                 category.variant + ": " + message);
      }
    }
  }
}

namespace {

std::string offline_architecture(const api::Certification& certification, const std::string& flag) {
  const std::string from_flag = platform::parse_gpu_arch_flag(flag);
  if (!from_flag.empty()) return from_flag;
  const auto& selector = certification.spec.target.nodeSelector;
  auto product = selector.find("nvidia.com/gpu.product");
  const std::string arch =
      product == selector.end() ? "" : platform::parse_gpu_product(product->second);
  if (arch.empty()) {
    throw std::runtime_error(
        "cannot determine GPU architecture from target nodeSelector (nvidia.com/gpu.product label "
        "is required)");
  }
  return arch;
}

}  // namespace

std::string unknown_threshold_keys_message(const std::map<std::string, std::string>& thresholds) {
  std::vector<std::string> unknown;
  for (const auto& [key, expression] : thresholds) {
    if (std::find(std::begin(kThresholdKeys), std::end(kThresholdKeys), key) ==
        std::end(kThresholdKeys)) {
      unknown.push_back(key);
    }
  }
  if (unknown.empty()) return {};
  return "unknown threshold key(s) " + bracketed(unknown) + "; valid keys: " +
         bracketed(std::vector<std::string>(std::begin(kThresholdKeys), std::end(kThresholdKeys)));
}

api::Certification load_certification_for_render(const RenderOptions& options) {
  platform::validate_platform_flag(
      options.platform);  // before the file is read, as the reference does
  check_render_output(options.output);
  // Every flag is checked before the file is read, so a bad flag is reported even without a file.
  platform::parse_gpu_arch_flag(options.gpu_arch);
  api::Certification certification = read_certification(options.file);
  check_options(certification);
  if (certification.spec.categories.empty())
    throw std::runtime_error("certification has no categories");
  if (certification.metadata.namespace_.empty()) certification.metadata.namespace_ = "default";
  return certification;
}

void check_render_output(const std::string& output) {
  if (output != "yaml" && output != "json")
    throw std::invalid_argument("invalid --output \"" + output + "\": must be yaml or json");
}

void write_rendered(const json::array& rendered, const std::string& output, std::ostream& out) {
  if (output == "json") {
    out << jsonkit::to_pretty_json(rendered);
    return;
  }
  for (std::size_t i = 0; i < rendered.size(); ++i) {
    if (i) out << "---\n";
    out << jsonkit::to_yaml(rendered[i]);
  }
}

void render_certification(const RenderOptions& options, std::ostream& out) {
  api::Certification certification = load_certification_for_render(options);
  certification::BuildInput input;
  input.offline = true;
  input.gpu_architecture = offline_architecture(certification, options.gpu_arch);
  input.nodes.push_back(
      platform::synthetic_node(certification.spec.target.nodeSelector, options.platform));

  json::array rendered;
  for (const auto& category : certification.spec.categories) {
    auto build = certification::build_category_workflow(certification, category, input);
    auto& annotations = build.workflow.metadata.annotations;
    annotations["nvcrectl.nvidia.com/detected-gpu-architecture"] = build.gpu_architecture;
    annotations["nvcrectl.nvidia.com/detected-platform"] = build.platform;
    rendered.push_back(api::encode_object(build.workflow));
  }
  write_rendered(rendered, options.output, out);
}

void list_categories(const std::string& output, std::ostream& out) {
  const auto keys = catalog::Catalog::builtin().list();
  if (output == "json" || output == "yaml") {
    json::array list;
    for (const auto& key : keys)
      list.push_back(json::object{{"domain", key.domain}, {"variant", key.variant}});
    out << (output == "json" ? jsonkit::to_pretty_json(list) : jsonkit::to_yaml(list));
    return;
  }
  out << std::left << std::setw(20) << "DOMAIN"
      << "VARIANT\n";
  for (const auto& key : keys)
    out << std::left << std::setw(20) << key.domain << key.variant << "\n";
}

}  // namespace nvcre::cli
