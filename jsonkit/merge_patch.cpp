#include "jsonkit/merge_patch.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace nvcre::jsonkit {

namespace json = boost::json;

namespace {

json::value merge_at(const json::value& base, const json::value& patch, const std::string& path) {
  if (!patch.is_object()) return without_nulls(patch);
  json::object out = base.is_object() ? base.get_object() : json::object();
  for (const auto& [key, value] : patch.get_object()) {
    const std::string child = path + "/" + std::string(key);
    if (key.starts_with("$")) {
      throw std::invalid_argument(
          "strategic-merge directive \"" + std::string(key) + "\" at \"" + child +
          "\" is not supported: a JSON merge patch merges maps and replaces lists");
    }
    if (value.is_null()) {
      out.stable_erase(key);
    } else {
      const json::value* current = out.if_contains(key);
      out[key] = merge_at(current != nullptr ? *current : json::value(nullptr), value, child);
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

json::value merge_patch(const json::value& base, const json::value& patch) {
  return merge_at(base, patch, "");
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

}  // namespace nvcre::jsonkit
