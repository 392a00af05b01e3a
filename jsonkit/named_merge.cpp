#include "jsonkit/named_merge.hpp"

#include "jsonkit/merge_patch.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace nvcre::jsonkit {

namespace json = boost::json;

namespace {

const json::string* item_name(const json::value& item) {
  if (!item.is_object()) return nullptr;
  const json::value* name = item.get_object().if_contains("name");
  return name != nullptr && name->is_string() && !name->get_string().empty() ? &name->get_string()
                                                                             : nullptr;
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
  for (const auto& item : override_list)
    by_name[std::string(*item_name(item))] = &item.get_object();
  std::unordered_map<std::string, bool> in_base;
  json::array out;
  for (const auto& item : base) {
    const std::string name(*item_name(item));
    in_base[name] = true;
    auto it = by_name.find(name);
    out.push_back(it == by_name.end() ? item
                                      : json::value(merge_maps(item.get_object(), *it->second)));
  }
  for (const auto& item : override_list) {
    if (!in_base.count(std::string(*item_name(item)))) out.push_back(without_nulls(item));
  }
  return out;
}

// What a key holding `current` ends with when the override gives it the non-null `value`: maps
// merge, two named lists merge by name, anything else is replaced.
json::value merged_value(const json::value& current, const json::value& value) {
  if (current.is_object() && value.is_object())
    return merge_maps(current.get_object(), value.get_object());
  if (current.is_array() && value.is_array() && is_named_list(current.get_array()) &&
      is_named_list(value.get_array()))
    return merge_named_lists(current.get_array(), value.get_array());
  return without_nulls(value);
}

json::object merge_maps(const json::object& base, const json::object& override_map) {
  json::object out = base;
  for (const auto& [key, value] : override_map) {
    json::value* current = out.if_contains(key);
    if (value.is_null()) {
      if (current != nullptr) out.stable_erase(key);  // stable: keep the order of the other keys
    } else if (current != nullptr) {
      *current = merged_value(*current, value);
    } else {
      out[key] = without_nulls(value);
    }
  }
  return out;
}

}  // namespace

json::value merge_named(const json::value& base, const json::value& override_value) {
  if (base.is_object() && override_value.is_object())
    return merge_maps(base.get_object(), override_value.get_object());
  return without_nulls(override_value);
}

json::value merge_named_lists(const json::value& base, const json::value& override_list) {
  return override_list.is_null() ? base : merged_value(base, override_list);
}

}  // namespace nvcre::jsonkit
