// Label selectors as list/watch `labelSelector=` and `kubectl get -l` send them: parsed, printed,
// printed text parsed again (it must give the same selector), matched against labels.
#include "k8s/label_selector.hpp"

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nvcre::k8s::LabelSelector selector;
  try {
    selector = nvcre::k8s::LabelSelector::parse(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  const std::string printed = selector.to_string();
  try {
    if (nvcre::k8s::LabelSelector::parse(printed).to_string() != printed) std::abort();
  } catch (const std::invalid_argument&) {
    std::abort();  // what we print must parse
  }
  nvcre::k8s::Labels labels{{"app", "nccl"}, {"gpu", "8"}, {"nvidia.com/gpu.product", "H100"}};
  for (const auto& requirement : selector.requirements()) {
    if (!requirement.values.empty()) labels[requirement.key] = requirement.values.front();
  }
  (void)selector.matches(labels);
  (void)selector.matches({});
  return 0;
}
