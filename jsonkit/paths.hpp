#pragma once
// Small helpers for walking and shaping raw Kubernetes JSON (TrainingRuntime dependencies): typed
// lookups that answer nullptr instead of throwing on a missing key or a wrong type, so malformed
// documents are skipped rather than crashing a reconcile.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace nvcre::jsonkit {

// The value at an object-key path below `root` ({} is `root` itself), or nullptr when a step is
// missing or not an object.
const boost::json::value* value_at(const boost::json::value& root,
                                   std::initializer_list<std::string_view> path);
// The object at `path`, or nullptr when it is missing or not an object.
const boost::json::object* object_at(const boost::json::value& root,
                                     std::initializer_list<std::string_view> path);
// The string at `path`, or "" when it is missing or not a string.
std::string string_at(const boost::json::value& root, std::initializer_list<std::string_view> path);

// The object at `path` below `root`, or nullptr when a step is missing or not an object.
const boost::json::object* find_object(const boost::json::object& root,
                                       std::initializer_list<std::string_view> path);
// The same below a possibly null `root` (nullptr then).
const boost::json::object* find_object(const boost::json::object* root,
                                       std::initializer_list<std::string_view> path);
boost::json::object* find_object(boost::json::object& root,
                                 std::initializer_list<std::string_view> path);

// The array at `path`, or nullptr.
const boost::json::array* find_array(const boost::json::object& root,
                                     std::initializer_list<std::string_view> path);
boost::json::array* find_array(boost::json::object& root,
                               std::initializer_list<std::string_view> path);

// The string at `key` of `object`, or nullptr (also for a null `object`).
const boost::json::string* find_string(const boost::json::object* object, std::string_view key);
// ... as text: "" when it is missing or not a string.
std::string string_of(const boost::json::object* object, std::string_view key);
// ... as a view into `object`: empty when it is missing or not a string.
std::string_view view_of(const boost::json::object* object, std::string_view key);

// The string at `key` of `object`: nullopt when the key is absent, "" when it holds something other
// than a string. For fields whose default applies only when they are absent, not when empty.
std::optional<std::string> optional_string_of(const boost::json::object& object,
                                              std::string_view key);

// The integer `value` holds: a whole number, a double (truncated) or a decimal numeric string
// ("8"); `fallback` for anything else, a null `value` included.
std::int64_t integer_of(const boost::json::value* value, std::int64_t fallback);

// The object at `key`, created (replacing any non-object value) when needed.
boost::json::object& ensure_object(boost::json::object& parent, std::string_view key);

// ensure_object along a path.
boost::json::object& ensure_path(boost::json::object& root,
                                 std::initializer_list<std::string_view> path);

}  // namespace nvcre::jsonkit
