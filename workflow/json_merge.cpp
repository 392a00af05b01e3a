#include "workflow/json_merge.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace nvcre::workflow {

namespace json = boost::json;

namespace {

// A value written fresh into a merge result: object members that are null are dropped
// (recursively, also inside list items), see json_merge.hpp.
json::value without_nulls(const json::value& value) {
  if (value.is_object()) {
    json::object out;
    for (const auto& [key, member] : value.get_object()) {
      if (!member.is_null()) out.emplace(key, without_nulls(member));
    }
    return out;
  }
  if (value.is_array()) {
    json::array out;
    for (const auto& item : value.get_array()) out.push_back(without_nulls(item));
    return out;
  }
  return value;
}

const json::string* item_name(const json::value& item) {
  if (!item.is_object()) return nullptr;
  const json::value* name = item.get_object().if_contains("name");
  return name != nullptr && name->is_string() && !name->get_string().empty() ? &name->get_string() : nullptr;
}

bool is_named_list(const json::array& list) {
  if (list.empty()) return false;
  for (const auto& item : list) {
    if (item_name(item) == nullptr) return false;
  }
  return true;
}

json::object merge_maps(const json::object& base, const json::object& override_map);

// Base order kept; each base item merged with the override item of its name (the last one, when
// the override repeats a name); override items with new names appended in override order.
json::array merge_named_lists(const json::array& base, const json::array& override_list) {
  std::unordered_map<std::string, const json::object*> by_name;
  for (const auto& item : override_list) by_name[std::string(*item_name(item))] = &item.get_object();
  std::unordered_map<std::string, bool> in_base;
  json::array out;
  for (const auto& item : base) {
    const std::string name(*item_name(item));
    in_base[name] = true;
    auto it = by_name.find(name);
    out.push_back(it == by_name.end() ? item : json::value(merge_maps(item.get_object(), *it->second)));
  }
  for (const auto& item : override_list) {
    if (!in_base.count(std::string(*item_name(item)))) out.push_back(without_nulls(item));
  }
  return out;
}

json::object merge_maps(const json::object& base, const json::object& override_map) {
  json::object out = base;
  for (const auto& [key, value] : override_map) {
    json::value* current = out.if_contains(key);
    if (value.is_null()) {
      if (current != nullptr) out.stable_erase(key);  // stable: keep the order of the other keys
    } else if (current != nullptr && current->is_object() && value.is_object()) {
      *current = merge_maps(current->get_object(), value.get_object());
    } else if (current != nullptr && current->is_array() && value.is_array() &&
               is_named_list(current->get_array()) && is_named_list(value.get_array())) {
      *current = merge_named_lists(current->get_array(), value.get_array());
    } else {
      out[key] = without_nulls(value);
    }
  }
  return out;
}

json::value merge_patch(const json::value& base, const json::value& patch, const std::string& path) {
  if (!patch.is_object()) return without_nulls(patch);
  json::object out = base.is_object() ? base.get_object() : json::object();
  for (const auto& [key, value] : patch.get_object()) {
    const std::string child = path + "/" + std::string(key);
    if (key.starts_with("$")) {
      throw std::invalid_argument("strategic-merge directive \"" + std::string(key) + "\" at \"" + child +
                                  "\" is not supported: jobTemplate overrides merge maps and replace lists");
    }
    if (value.is_null()) {
      out.stable_erase(key);
    } else {
      const json::value* current = out.if_contains(key);
      out[key] = merge_patch(current != nullptr ? *current : json::value(nullptr), value, child);
    }
  }
  return out;
}

bool numbers_equal(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
  if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
  if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
  const std::int64_t signed_value = a.is_int64() ? a.get_int64() : b.get_int64();
  const std::uint64_t unsigned_value = a.is_uint64() ? a.get_uint64() : b.get_uint64();
  return signed_value >= 0 && static_cast<std::uint64_t>(signed_value) == unsigned_value;
}

}  // namespace

json::value merge_dependency_objects(const json::value& base, const json::value& override_value) {
  if (base.is_object() && override_value.is_object()) return merge_maps(base.get_object(), override_value.get_object());
  return without_nulls(override_value);
}

json::value merge_job_template(const json::value& base, const json::value& patch) {
  return merge_patch(base, patch, "");
}

bool json_equal(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) return numbers_equal(a, b);
  if (a.kind() != b.kind()) return false;
  if (a.is_object()) {
    const auto& x = a.get_object();
    const auto& y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& [key, value] : x) {
      const json::value* other = y.if_contains(key);
      if (other == nullptr || !json_equal(value, *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    const auto& x = a.get_array();
    const auto& y = b.get_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!json_equal(x[i], y[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace nvcre::workflow
