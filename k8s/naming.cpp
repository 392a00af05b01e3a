#include "k8s/naming.hpp"

#include <cstdio>
#include <stdexcept>

namespace nvcre::k8s {

std::uint32_t fnv32a(std::string_view data) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char byte : data) {
    hash ^= byte;
    hash *= 16777619u;
  }
  return hash;
}

std::string name_hash(std::string_view name) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%05x", static_cast<unsigned>(fnv32a(name)));
  return std::string(buf, 5);
}

std::string truncate_name(std::string_view name, std::size_t max) {
  if (name.size() <= max) return std::string(name);
  if (max < 6) throw std::invalid_argument("truncate_name: max must be at least 6");
  std::string_view prefix = name.substr(0, max - 6);
  while (!prefix.empty() && prefix.back() == '-') prefix.remove_suffix(1);
  std::string out(prefix);
  out += '-';
  out += name_hash(name);
  return out;
}

std::string extract_hash(std::string_view name) {
  const auto dash = name.rfind('-');
  if (dash != std::string_view::npos && name.size() - dash - 1 == 5) {
    return std::string(name.substr(dash + 1));
  }
  return name_hash(name);
}

}  // namespace nvcre::k8s
