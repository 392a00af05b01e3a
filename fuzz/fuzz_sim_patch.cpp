// kube-sim's PATCH of stored objects: JSON merge patch, JSON patch, strategic merge and apply
// (YAML), on a ConfigMap and a Certification (CRD defaults and validation after the patch). The
// input's first byte picks the patch type, the object, and dry-run or a real write.
#include "sim_fixture.hpp"

#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr const char* kTypes[] = {
      "application/merge-patch+json", "application/json-patch+json",
      "application/strategic-merge-patch+json", "application/apply-patch+yaml"};
  static constexpr const char* kPaths[] = {
      "/api/v1/namespaces/default/configmaps/settings",
      "/apis/nvcre.nvidia.com/v1alpha1/namespaces/default/certifications/cert",
      "/apis/nvcre.nvidia.com/v1alpha1/namespaces/default/certifications/cert/status",
      "/apis/nvcre.nvidia.com/v1alpha1/namespaces/default/certifications/created"};
  nvcre::sim::HttpRequest request;
  request.method = "PATCH";
  request.content_type = kTypes[data[0] & 3];
  request.path = kPaths[(data[0] >> 2) & 3];
  if ((data[0] & 0x10) == 0) request.query["dryRun"] = "All";
  if (data[0] & 0x20) request.query["fieldValidation"] = "Strict";
  if (data[0] & 0x40) request.query["fieldManager"] = "fuzz";
  request.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)nvcre::fuzz::fixture_server().handle(request);
  return 0;
}
