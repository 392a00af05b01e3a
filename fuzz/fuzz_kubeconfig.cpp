// A kubeconfig file as nvcrectl and the manager read it (no file is opened: only the text).
#include "k8s/kubeconfig.hpp"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto config = nvcre::k8s::parse_kubeconfig(text, "fuzz-kubeconfig", {}, "/nonexistent");
    (void)config.describe();
  } catch (const nvcre::k8s::ConfigError&) {
  }
  (void)nvcre::k8s::decode_base64(text);
  return 0;
}
