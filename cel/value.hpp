#pragma once
// CEL values (what an expression computes) and CEL types (what the checker infers).
#include <boost/json/fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace nvcre::cel {

class Value;
using List = std::vector<Value>;
using MapEntries = std::vector<std::pair<Value, Value>>;  // insertion order, unique keys

enum class Kind { Null, Bool, Int, Uint, Double, String, List, Map };

// The CEL name of a kind: "null_type", "bool", "int", "uint", "double", "string", "list", "map".
std::string_view kind_name(Kind kind);

// An immutable CEL value. Lists and maps share their elements, so copies are cheap.
class Value {
 public:
  Value() = default;  // null
  static Value boolean(bool value) { return Value(value); }
  static Value integer(std::int64_t value) { return Value(value); }
  static Value unsigned_integer(std::uint64_t value) { return Value(value); }
  static Value floating(double value) { return Value(value); }
  static Value string(std::string value) { return Value(std::move(value)); }
  static Value list(List items) { return Value(std::make_shared<const List>(std::move(items))); }
  // Later duplicates of a key replace earlier ones (callers that must reject duplicates check
  // first).
  static Value map(MapEntries entries);

  Kind kind() const { return static_cast<Kind>(storage_.index()); }
  bool is(Kind kind) const { return this->kind() == kind; }
  bool as_bool() const { return std::get<bool>(storage_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(storage_); }
  std::uint64_t as_uint() const { return std::get<std::uint64_t>(storage_); }
  double as_double() const { return std::get<double>(storage_); }
  const std::string& as_string() const { return std::get<std::string>(storage_); }
  const List& as_list() const { return *std::get<std::shared_ptr<const List>>(storage_); }
  const MapEntries& as_map() const {
    return *std::get<std::shared_ptr<const MapEntries>>(storage_);
  }

  // The value under `key` of a map (CEL equality, so 1 and 1u find the same entry); nullptr when
  // absent. Only for maps.
  const Value* find(const Value& key) const;

 private:
  using Storage =
      std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string,
                   std::shared_ptr<const List>, std::shared_ptr<const MapEntries>>;
  template <typename T>
  explicit Value(T value) : storage_(std::move(value)) {}
  Storage storage_{nullptr};
};

// CEL equality: values of different kinds are unequal, except numbers, which compare by their
// mathematical value (1 == 1u == 1.0); NaN equals nothing; lists and maps compare element-wise.
bool equals(const Value& left, const Value& right);

// Numeric order across int, uint and double, exact (no rounding through double). nullopt when a
// NaN takes part: every ordering with NaN is false. Both values must be numbers.
std::optional<int> compare_numbers(const Value& left, const Value& right);

bool is_number(Kind kind);

// A JSON document as a CEL value: objects become maps with string keys, arrays lists, integers
// int (uint above the int64 range), other numbers double.
Value from_json(const boost::json::value& json);

// A static type: dyn where the checker cannot know, list(T), map(K, V), or a scalar kind.
class Type {
 public:
  enum class Tag { Dyn, Null, Bool, Int, Uint, Double, String, List, Map };
  Type() = default;  // dyn
  static Type dyn() { return Type(Tag::Dyn); }
  static Type null() { return Type(Tag::Null); }
  static Type boolean() { return Type(Tag::Bool); }
  static Type integer() { return Type(Tag::Int); }
  static Type unsigned_integer() { return Type(Tag::Uint); }
  static Type floating() { return Type(Tag::Double); }
  static Type string() { return Type(Tag::String); }
  static Type list(Type element);
  static Type map(Type key, Type value);

  Tag tag() const { return tag_; }
  bool is(Tag tag) const { return tag_ == tag; }
  bool is_dyn() const { return tag_ == Tag::Dyn; }
  bool is_number() const { return tag_ == Tag::Int || tag_ == Tag::Uint || tag_ == Tag::Double; }
  const Type& element() const { return *first_; }  // list element
  const Type& key() const { return *first_; }      // map key
  const Type& value() const { return *second_; }   // map value

  std::string name() const;  // "dyn", "int", "list(string)", "map(string, dyn)", ...
  bool operator==(const Type& other) const;

 private:
  explicit Type(Tag tag) : tag_(tag) {}
  Tag tag_ = Tag::Dyn;
  std::shared_ptr<const Type> first_;
  std::shared_ptr<const Type> second_;
};

}  // namespace nvcre::cel
