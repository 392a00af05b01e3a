#include "cel/value.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace nvcre::cel {

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::Null:
      return "null_type";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Uint:
      return "uint";
    case Kind::Double:
      return "double";
    case Kind::String:
      return "string";
    case Kind::List:
      return "list";
    case Kind::Map:
      break;
  }
  return "map";
}

bool is_number(Kind kind) {
  return kind == Kind::Int || kind == Kind::Uint || kind == Kind::Double;
}

Value Value::map(MapEntries entries) {
  MapEntries unique;
  unique.reserve(entries.size());
  for (auto& entry : entries) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    auto same = std::find_if(unique.begin(), unique.end(),
                             [&](const auto& kept) { return equals(kept.first, entry.first); });
    if (same != unique.end()) {
      same->second = std::move(entry.second);
    } else {
      unique.emplace_back(std::move(entry.first), std::move(entry.second));
    }
  }
  return Value(std::make_shared<const MapEntries>(std::move(unique)));
}

const Value* Value::find(const Value& key) const {
  for (const auto& [entry_key, entry_value] : as_map()) {
    if (equals(entry_key, key)) return &entry_value;
  }
  return nullptr;
}

namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr double kTwoTo64 = 18446744073709551616.0;

int sign_of(bool less, bool greater) { return less ? -1 : greater ? 1 : 0; }

// Exact order of a double and an int64: truncate the double (exact when it is in range), then
// let the dropped fraction break a tie.
int compare_double_int(double d, std::int64_t i) {
  if (d < -kTwoTo63) return -1;
  if (d >= kTwoTo63) return 1;
  const auto truncated = static_cast<std::int64_t>(d);
  if (truncated != i) return sign_of(truncated<i, truncated> i);
  const double fraction = d - static_cast<double>(truncated);
  return sign_of(fraction<0, fraction> 0);
}

int compare_double_uint(double d, std::uint64_t u) {
  if (d < 0) return -1;
  if (d >= kTwoTo64) return 1;
  const auto truncated = static_cast<std::uint64_t>(d);
  if (truncated != u) return sign_of(truncated<u, truncated> u);
  const double fraction = d - static_cast<double>(truncated);
  return sign_of(fraction<0, fraction> 0);
}

int compare_int_uint(std::int64_t i, std::uint64_t u) {
  if (i < 0) return -1;
  const auto as_unsigned = static_cast<std::uint64_t>(i);
  return sign_of(as_unsigned<u, as_unsigned> u);
}

}  // namespace

std::optional<int> compare_numbers(const Value& left, const Value& right) {
  switch (left.kind()) {
    case Kind::Int:
      if (right.is(Kind::Int))
        return sign_of(left.as_int() < right.as_int(), left.as_int() > right.as_int());
      if (right.is(Kind::Uint)) return compare_int_uint(left.as_int(), right.as_uint());
      if (std::isnan(right.as_double())) return std::nullopt;
      return -compare_double_int(right.as_double(), left.as_int());
    case Kind::Uint:
      if (right.is(Kind::Uint))
        return sign_of(left.as_uint() < right.as_uint(), left.as_uint() > right.as_uint());
      if (right.is(Kind::Int)) return -compare_int_uint(right.as_int(), left.as_uint());
      if (std::isnan(right.as_double())) return std::nullopt;
      return -compare_double_uint(right.as_double(), left.as_uint());
    default:
      break;
  }
  const double d = left.as_double();
  if (std::isnan(d)) return std::nullopt;
  if (right.is(Kind::Int)) return compare_double_int(d, right.as_int());
  if (right.is(Kind::Uint)) return compare_double_uint(d, right.as_uint());
  if (std::isnan(right.as_double())) return std::nullopt;
  return sign_of(d<right.as_double(), d> right.as_double());
}

bool equals(const Value& left, const Value& right) {
  if (is_number(left.kind()) && is_number(right.kind())) return compare_numbers(left, right) == 0;
  if (left.kind() != right.kind()) return false;
  switch (left.kind()) {
    case Kind::Null:
      return true;
    case Kind::Bool:
      return left.as_bool() == right.as_bool();
    case Kind::String:
      return left.as_string() == right.as_string();
    case Kind::List: {
      const List& a = left.as_list();
      const List& b = right.as_list();
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!equals(a[i], b[i])) return false;
      }
      return true;
    }
    case Kind::Map: {
      if (left.as_map().size() != right.as_map().size()) return false;
      for (const auto& [key, value] : left.as_map()) {
        const Value* other = right.find(key);
        if (other == nullptr || !equals(value, *other)) return false;
      }
      return true;
    }
    default:
      return false;  // numbers were handled above
  }
}

Value from_json(const boost::json::value& json) {
  switch (json.kind()) {
    case boost::json::kind::null:
      return Value();
    case boost::json::kind::bool_:
      return Value::boolean(json.get_bool());
    case boost::json::kind::int64:
      return Value::integer(json.get_int64());
    case boost::json::kind::uint64:
      if (json.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Value::integer(static_cast<std::int64_t>(json.get_uint64()));
      return Value::unsigned_integer(json.get_uint64());
    case boost::json::kind::double_:
      return Value::floating(json.get_double());
    case boost::json::kind::string:
      return Value::string(std::string(json.get_string()));
    case boost::json::kind::array: {
      List items;
      for (const auto& item : json.get_array()) items.push_back(from_json(item));
      return Value::list(std::move(items));
    }
    case boost::json::kind::object:
      break;
  }
  MapEntries entries;
  for (const auto& [key, value] : json.get_object())
    entries.emplace_back(Value::string(std::string(key)), from_json(value));
  return Value::map(std::move(entries));
}

Type Type::list(Type element) {
  Type type(Tag::List);
  type.first_ = std::make_shared<const Type>(std::move(element));
  return type;
}

Type Type::map(Type key, Type value) {
  Type type(Tag::Map);
  type.first_ = std::make_shared<const Type>(std::move(key));
  type.second_ = std::make_shared<const Type>(std::move(value));
  return type;
}

std::string Type::name() const {
  switch (tag_) {
    case Tag::Dyn:
      return "dyn";
    case Tag::List:
      return "list(" + element().name() + ")";
    case Tag::Map:
      return "map(" + key().name() + ", " + value().name() + ")";
    default:
      break;
  }
  return std::string(kind_name(static_cast<Kind>(static_cast<int>(tag_) - 1)));
}

bool Type::operator==(const Type& other) const {
  if (tag_ != other.tag_) return false;
  if (tag_ == Tag::List) return element() == other.element();
  if (tag_ == Tag::Map) return key() == other.key() && value() == other.value();
  return true;
}

}  // namespace nvcre::cel
