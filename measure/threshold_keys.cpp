#include "measure/threshold_keys.hpp"

namespace nvcre::measure {

std::optional<ThresholdKey> find_threshold_key(std::string_view name) {
  for (const auto& key : kThresholdKeys) {
    if (key.name == name) return key;
  }
  return std::nullopt;
}

}  // namespace nvcre::measure
