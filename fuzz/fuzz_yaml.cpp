// YAML manifests as `nvcrectl validate` / `apply` and kube-sim's apply-patch read them: a stream of
// documents (multi-doc, anchors, tags) into JSON values, each written back as YAML.
#include "jsonkit/yaml.hpp"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& document : nvcre::jsonkit::parse_yaml_documents(text)) {
      (void)nvcre::jsonkit::to_yaml(document);
    }
  } catch (const nvcre::jsonkit::ParseError&) {
  }
  return 0;
}
