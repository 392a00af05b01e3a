#include "jsonkit/paths.hpp"

#include "jsonkit/numbers.hpp"

namespace nvcre::jsonkit {
namespace json = boost::json;

const json::value* value_at(const json::value& root, std::initializer_list<std::string_view> path) {
  const json::value* node = &root;
  for (auto key : path) {
    const auto* object = node->if_object();
    node = object != nullptr ? object->if_contains(key) : nullptr;
    if (node == nullptr) return nullptr;
  }
  return node;
}

const json::object* object_at(const json::value& root,
                              std::initializer_list<std::string_view> path) {
  const auto* value = value_at(root, path);
  return value != nullptr ? value->if_object() : nullptr;
}

std::string string_at(const json::value& root, std::initializer_list<std::string_view> path) {
  const auto* value = value_at(root, path);
  return value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
}

const json::object* find_object(const json::object& root,
                                std::initializer_list<std::string_view> path) {
  const json::object* current = &root;
  for (std::string_view key : path) {
    const json::value* next = current->if_contains(key);
    if (next == nullptr || !next->is_object()) return nullptr;
    current = &next->get_object();
  }
  return current;
}

json::object* find_object(json::object& root, std::initializer_list<std::string_view> path) {
  return const_cast<json::object*>(find_object(static_cast<const json::object&>(root), path));
}

const json::array* find_array(const json::object& root,
                              std::initializer_list<std::string_view> path) {
  if (path.size() == 0) return nullptr;
  const json::object* parent = &root;
  auto last = path.end() - 1;
  for (auto it = path.begin(); it != last; ++it) {
    const json::value* next = parent->if_contains(*it);
    if (next == nullptr || !next->is_object()) return nullptr;
    parent = &next->get_object();
  }
  const json::value* value = parent->if_contains(*last);
  return value != nullptr ? value->if_array() : nullptr;
}

json::array* find_array(json::object& root, std::initializer_list<std::string_view> path) {
  return const_cast<json::array*>(find_array(static_cast<const json::object&>(root), path));
}

const json::string* find_string(const json::object* object, std::string_view key) {
  if (object == nullptr) return nullptr;
  const json::value* value = object->if_contains(key);
  return value != nullptr ? value->if_string() : nullptr;
}

json::object& ensure_object(json::object& parent, std::string_view key) {
  json::value& slot = parent[key];
  if (!slot.is_object()) slot = json::object();
  return slot.get_object();
}

json::object& ensure_path(json::object& root, std::initializer_list<std::string_view> path) {
  json::object* current = &root;
  for (std::string_view key : path) current = &ensure_object(*current, key);
  return *current;
}

std::string string_of(const json::object* object, std::string_view key) {
  return std::string(view_of(object, key));
}

std::string_view view_of(const json::object* object, std::string_view key) {
  const json::string* value = find_string(object, key);
  return value != nullptr ? std::string_view(*value) : std::string_view();
}

const json::object* find_object(const json::object* root,
                                std::initializer_list<std::string_view> path) {
  return root != nullptr ? find_object(*root, path) : nullptr;
}

std::optional<std::string> optional_string_of(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr) return std::nullopt;
  return value->is_string() ? std::string(value->get_string()) : std::string();
}

std::int64_t integer_of(const json::value* value, std::int64_t fallback) {
  if (value == nullptr) return fallback;
  if (value->is_int64()) return value->get_int64();
  if (value->is_uint64()) return static_cast<std::int64_t>(value->get_uint64());
  if (value->is_double()) return clamped_int64(value->get_double());
  if (value->is_string()) {
    if (auto out = whole_number<std::int64_t>(value->get_string())) return *out;
  }
  return fallback;
}

}  // namespace nvcre::jsonkit
