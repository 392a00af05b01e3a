#pragma once
// Small readers shared by golden tests: command flags from a case's input_flags.yaml, and JSON
// lookups for projections of large outputs.
#include <boost/json.hpp>

#include <initializer_list>
#include <string>
#include <string_view>

#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"

namespace nvcre::testing {

// The string value of `name` in the case's input_flags.yaml; "" when the file or key is absent.
inline std::string flag(const GoldenCase& golden_case, const char* name) {
  if (!golden_case.has_input("input_flags.yaml")) return {};
  const auto flags = jsonkit::parse_yaml(golden_case.input("input_flags.yaml"));
  const auto* value = flags.as_object().if_contains(name);
  return value ? std::string(value->as_string()) : std::string();
}

// The value at an object-key path, or nullptr.
inline const boost::json::value* find(const boost::json::value& root,
                                      std::initializer_list<std::string_view> path) {
  const boost::json::value* node = &root;
  for (auto key : path) {
    const auto* object = node->if_object();
    node = object ? object->if_contains(key) : nullptr;
    if (node == nullptr) return nullptr;
  }
  return node;
}

// The string at an object-key path, or "" when it is absent or not a string.
inline std::string string_at(const boost::json::value& root,
                             std::initializer_list<std::string_view> path) {
  const auto* value = find(root, path);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

inline boost::json::value or_null(const boost::json::value* value) {
  return value ? *value : boost::json::value(nullptr);
}

}  // namespace nvcre::testing
