#include "certification/naming.hpp"

#include "k8s/naming.hpp"

namespace nvcre::certification {

std::string option_suffix(const api::CertificateCategory& category) {
  if (!category.options) return {};
  const api::CategoryOptions& options = *category.options;
  std::string suffix;
  auto add = [&suffix](const std::string& token) {
    if (!suffix.empty()) suffix += '-';
    suffix += token;
  };
  if (options.nodesPerJob) add("n" + std::to_string(*options.nodesPerJob));
  if (options.enableMNNVL) add(*options.enableMNNVL ? "mnnvl" : "nomnnvl");
  if (!options.testScale.empty()) add(options.testScale);
  if (options.enableCheckpoint.value_or(false)) add("ckpt");
  if (options.maxSteps) add("s" + std::to_string(*options.maxSteps));
  if (options.exitDurationMins) add("e" + std::to_string(*options.exitDurationMins));
  if (options.gpusPerNode) add("g" + std::to_string(*options.gpusPerNode));
  // Two categories that differ only in how the pods reach the NICs run different pods.
  if (options.rdmaDeviceAccess == api::rdma_device_access::kHostPath) add("hostrdma");
  if (options.rdmaDeviceAccess == api::rdma_device_access::kDevicePlugin) add("dprdma");
  // A resource name holds '/' and '.', which a Workflow name cannot: its hash stands in.
  if (options.nicResourceName && !options.nicResourceName->empty())
    add("nic" + k8s::name_hash(*options.nicResourceName));
  if (options.mlnxPerNode) add("m" + std::to_string(*options.mlnxPerNode));
  return suffix;
}

std::string workflow_name(std::string_view certification_name,
                          const api::CertificateCategory& category) {
  std::string name =
      std::string(certification_name) + "-" + category.domain + "-" + category.variant;
  const std::string suffix = option_suffix(category);
  if (!suffix.empty()) name += "-" + suffix;
  return k8s::truncate_name(name, k8s::kMaxWorkflowNameLength);
}

std::map<std::string, std::string> workflow_labels(std::string_view certification_name,
                                                   const api::CertificateCategory& category) {
  return {{std::string(kManagedByLabel), std::string(kManagedByValue)},
          {std::string(kCertificationLabel), std::string(certification_name)},
          {std::string(kCategoryDomainLabel), category.domain},
          {std::string(kCategoryVariantLabel), category.variant}};
}

std::map<std::string, std::string> workflow_annotations(std::string_view resolved_test_scale) {
  if (resolved_test_scale.empty()) return {};
  return {{std::string(kRequestedTestScaleAnnotation), std::string(resolved_test_scale)}};
}

}  // namespace nvcre::certification
