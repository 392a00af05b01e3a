// Golden suite `gpu-defaults` for platform/gpu_defaults.hpp. input.yaml holds any of:
//   gpuArch + platform       -> gpusPerNode, mlnxPerNode, enableMNNVL, fallbackWarning
//   matrix {architectures, platforms} -> "gpus/mlnx" for every pair (platform "" = none given)
//   gpuArchFlag              -> the parsed --gpu-arch value (or the error)
//   nic {option, platform, gpuArch, mlnxPerNode, nodes} -> detected NIC resource and message
#include "jsonkit/yaml.hpp"
#include "platform/gpu_defaults.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

namespace json = boost::json;
using nvcre::testing::GoldenCase;
namespace platform = nvcre::platform;

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

json::value optional_text(const std::optional<std::string>& text) {
  return text ? json::value(*text) : json::value(nullptr);
}

json::object defaults_of(const std::string& architecture, const std::string& platform_name) {
  const auto defaults = platform::gpu_defaults(architecture, platform_name);
  return {{"gpuArch", architecture},
          {"platform", platform_name},
          {"gpusPerNode", defaults.gpusPerNode},
          {"mlnxPerNode", defaults.mlnxPerNode},
          {"enableMNNVL", platform::default_enable_mnnvl(architecture)},
          {"fallbackWarning", optional_text(platform::gpu_arch_fallback_message(
                                  architecture, defaults.gpusPerNode, defaults.mlnxPerNode,
                                  platform::kGpuArchFieldHintCertification))}};
}

json::object matrix_of(const json::object& matrix) {
  json::object rows;
  for (const auto& arch : matrix.at("architectures").as_array()) {
    const std::string architecture(arch.as_string());
    json::object by_platform;
    for (const auto& name : matrix.at("platforms").as_array()) {
      const std::string platform_name(name.as_string());
      const auto defaults = platform::gpu_defaults(architecture, platform_name);
      by_platform[platform_name.empty() ? "(none)" : platform_name] =
          std::to_string(defaults.gpusPerNode) + "/" + std::to_string(defaults.mlnxPerNode);
    }
    rows[architecture.empty() ? "(empty)" : architecture] = json::object{
        {"enableMNNVL", platform::default_enable_mnnvl(architecture)},
        {"fallbackWarning", optional_text(platform::gpu_arch_fallback_message(
                                architecture, platform::kFallbackNodeDefaults.gpusPerNode,
                                platform::kFallbackNodeDefaults.mlnxPerNode,
                                platform::kGpuArchFieldHintCertification))},
        {"gpusSlashMlnxByPlatform", by_platform}};
  }
  return rows;
}

json::object nic_of(const json::object& nic) {
  std::vector<json::value> nodes;
  if (const json::value* list = nic.if_contains("nodes")) {
    for (const auto& node : list->as_array()) nodes.push_back(node);
  }
  const json::value* mlnx = nic.if_contains("mlnxPerNode");
  const auto detection = platform::detect_nic_resource_name(
      string_at(nic, "option"), string_at(nic, "platform"), string_at(nic, "gpuArch"),
      mlnx != nullptr ? static_cast<std::int32_t>(mlnx->as_int64()) : 0, nodes);
  return {{"nicResourceName", detection.resourceName}, {"message", detection.message}};
}

class GpuDefaults : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GpuDefaults, Resolves) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const json::object input =
        nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")).as_object();
    json::object out;
    if (input.contains("gpuArch"))
      out["defaults"] = defaults_of(string_at(input, "gpuArch"), string_at(input, "platform"));
    if (const json::value* matrix = input.if_contains("matrix"))
      out["matrix"] = matrix_of(matrix->as_object());
    if (input.contains("gpuArchFlag"))
      out["parsedGpuArchFlag"] = platform::parse_gpu_arch_flag(string_at(input, "gpuArchFlag"));
    if (const json::value* nic = input.if_contains("nic")) out["nic"] = nic_of(nic->as_object());
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(GpuDefaults, "gpu-defaults");

}  // namespace
