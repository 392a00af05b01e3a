// Resource quantities ("500m", "1.5Gi", "1e3") as CRD validation, CEL quantity() and the GPU
// counts read them: parse, the canonical text parses back to the same value, the integer views,
// and the grammar check agrees with the parser.
#include "k8s/quantity.hpp"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto quantity = nvcre::k8s::Quantity::parse(text);
  if (nvcre::k8s::is_valid_quantity(text) != quantity.has_value()) std::abort();
  if (!quantity) return 0;
  const std::string canonical = quantity->canonical();
  const auto again = nvcre::k8s::Quantity::parse(canonical);
  if (!again || *again != *quantity) std::abort();
  (void)quantity->value();
  (void)quantity->milli_value();
  (void)(*quantity <=> nvcre::k8s::Quantity());
  return 0;
}
