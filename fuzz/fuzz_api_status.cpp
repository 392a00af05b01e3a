// An error answer's body as the REST client decodes it (a metav1.Status, or whatever a proxy sent),
// and the one-line refusal message built from it. The first two bytes choose the HTTP code.
#include "k8s/api_error.hpp"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int code = 100 + (data[0] << 8 | data[1]) % 500;
  const std::string_view body(reinterpret_cast<const char*>(data) + 2, size - 2);
  const auto error = nvcre::k8s::decode_api_error(code, body);
  (void)nvcre::k8s::is_not_found(error);
  (void)nvcre::k8s::describe_refusal("PATCH", "/apis/nvcre.nvidia.com/v1alpha1/jobs/x", error,
                                     body);
  return 0;
}
