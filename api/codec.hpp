#pragma once
// Generic JSON codec for the typed model. A struct takes part by describing its members with
// BOOST_DESCRIBE_STRUCT; the JSON name of a member is its C++ name without a trailing '_'
// (`namespace_` -> "namespace"). Supported member types: std::string, bool, std::int32_t,
// std::int64_t, double, std::optional<T>, std::vector<T>, std::map<std::string, T>,
// boost::json::value / boost::json::object (raw parts, kept as given), described structs, and any
// type with ADL overloads `decode_json(const boost::json::value&, T&, DecodeContext&)` and
// `encode_json(const T&) -> boost::json::value` (see DependencySpec).
//
// Decoding reports every problem with its field path and never returns a partial object; unknown
// fields in typed parts are problems, not silently dropped. Encoding omits what Go's `omitempty`
// omits (absent optionals, empty strings, lists and maps, false, null raw parts; members without
// `omitempty` opt out, see always_encoded) and keeps members in declaration order, so golden output
// is stable.
#include "jsonkit/numbers.hpp"

#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <boost/mp11/algorithm.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace nvcre::api {

struct DecodeProblem {
  std::string field;    // e.g. "spec.categories[0].domain"
  std::string message;  // e.g. "expected string, got number"
};

class DecodeError : public std::runtime_error {
 public:
  explicit DecodeError(std::vector<DecodeProblem> problems);
  const std::vector<DecodeProblem>& problems() const { return problems_; }

 private:
  std::vector<DecodeProblem> problems_;
};

// Tracks the path being decoded and collects problems. The path is kept as segments that view the
// member names and keys pushed (which outlive their pop(): names are literals, keys belong to the
// document being decoded) and is spelled out only when a problem is reported, so decoding a valid
// object allocates nothing for its paths.
class DecodeContext {
 public:
  explicit DecodeContext(std::string root = {}) : root_(std::move(root)) {}

  void report(std::string message) { problems_.push_back({path(), std::move(message)}); }
  std::string path() const;
  std::string child_path(std::string_view field) const;
  void push_field(std::string_view field) { segments_.push_back({Segment::Field, field, 0}); }
  void push_index(std::size_t index) { segments_.push_back({Segment::Index, {}, index}); }
  void push_key(std::string_view key) { segments_.push_back({Segment::Key, key, 0}); }
  void pop() { segments_.pop_back(); }
  bool failed() const { return !problems_.empty(); }
  std::vector<DecodeProblem> take_problems() { return std::move(problems_); }

  // Fields the typed model does not describe but the caller reads itself (given the full path of
  // the field, e.g. "spec.overrides[2].orchestration.placement"): not reported as unknown.
  void tolerate_unknown_fields(std::function<bool(std::string_view path)> tolerated) {
    tolerated_unknown_ = std::move(tolerated);
  }
  // Reports an unknown field unless it is tolerated.
  void unknown_field(std::string_view field);

 private:
  struct Segment {
    enum Kind { Field, Index, Key } kind;
    std::string_view text;  // Field, Key
    std::size_t index;      // Index
  };
  std::string root_;
  std::vector<Segment> segments_;
  std::vector<DecodeProblem> problems_;
  std::function<bool(std::string_view)> tolerated_unknown_;
};

// "string", "integer", "number", "boolean", "object", "array", "null": for messages.
std::string_view json_type_name(const boost::json::value& value);

// JSON name of a described member.
constexpr std::string_view json_member_name(std::string_view cpp_name) {
  if (!cpp_name.empty() && cpp_name.back() == '_') cpp_name.remove_suffix(1);
  return cpp_name;
}

namespace codec_detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class T>
struct is_string_map<std::map<std::string, T>> : std::true_type {};

template <class T>
concept has_custom_codec = requires(const boost::json::value& in, T& out, DecodeContext& ctx) {
  decode_json(in, out, ctx);
  { encode_json(static_cast<const T&>(out)) } -> std::same_as<boost::json::value>;
};

template <class T>
concept described_struct = boost::describe::has_describe_members<T>::value;

template <class Int>
void decode_integer(const boost::json::value& in, Int& out, DecodeContext& ctx) {
  std::int64_t value = 0;
  if (in.is_int64()) {
    value = in.get_int64();
  } else if (in.is_uint64() && in.get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
    value = static_cast<std::int64_t>(in.get_uint64());
  } else if (const auto whole =
                 in.is_double() ? jsonkit::exact_int64(in.get_double()) : std::nullopt) {
    value = *whole;
  } else {
    ctx.report("expected integer, got " + std::string(json_type_name(in)));
    return;
  }
  if (value < std::numeric_limits<Int>::min() || value > std::numeric_limits<Int>::max()) {
    ctx.report("integer " + std::to_string(value) + " is out of range");
    return;
  }
  out = static_cast<Int>(value);
}

}  // namespace codec_detail

template <class T>
void decode_value(const boost::json::value& in, T& out, DecodeContext& ctx);
template <class T>
boost::json::value encode_value(const T& in);

// Whether a member holding `value` is left out of encoded output (Go's omitempty).
template <class T>
bool omitted_when_encoding(const T& value) {
  if constexpr (codec_detail::is_optional<T>::value) {
    return !value.has_value();
  } else if constexpr (std::is_same_v<T, std::string> || codec_detail::is_vector<T>::value ||
                       codec_detail::is_string_map<T>::value) {
    return value.empty();
  } else if constexpr (std::is_same_v<T, bool>) {
    return !value;
  } else if constexpr (std::is_same_v<T, boost::json::value>) {
    return value.is_null();
  } else if constexpr (std::is_same_v<T, boost::json::object>) {
    return value.empty();
  } else {
    return false;  // numbers and nested structs are always written
  }
}

// Go writes a member whose json tag lacks `omitempty` even when it is empty (a Condition's
// "message": "", a screening result's "passed": false), and the CRD schema then lists it as
// required. A struct names such members, by JSON name, in
//   static constexpr std::string_view json_always_encoded[] = {"message", "reason"};
// and encode_struct writes them whatever their value.
template <class T>
constexpr bool always_encoded(std::string_view json_name) {
  if constexpr (requires { T::json_always_encoded; }) {
    for (std::string_view name : T::json_always_encoded) {
      if (name == json_name) return true;
    }
  }
  return false;
}

// Every name in T::json_always_encoded is the JSON name of a described member (catches typos).
template <class T>
constexpr bool always_encoded_names_are_members() {
  if constexpr (requires { T::json_always_encoded; }) {
    using Members = boost::describe::describe_members<T, boost::describe::mod_public>;
    for (std::string_view name : T::json_always_encoded) {
      bool found = false;
      boost::mp11::mp_for_each<Members>(
          [&](auto member) { found = found || json_member_name(member.name) == name; });
      if (!found) return false;
    }
  }
  return true;
}

template <class T>
void decode_struct(const boost::json::value& in, T& out, DecodeContext& ctx) {
  using Members = boost::describe::describe_members<T, boost::describe::mod_public>;
  if (!in.is_object()) {
    ctx.report("expected object, got " + std::string(json_type_name(in)));
    return;
  }
  const auto& object = in.get_object();
  for (const auto& entry : object) {
    bool known = false;
    boost::mp11::mp_for_each<Members>([&](auto member) {
      if (json_member_name(member.name) == std::string_view(entry.key())) known = true;
    });
    if (!known) ctx.unknown_field(entry.key());
  }
  boost::mp11::mp_for_each<Members>([&](auto member) {
    const std::string_view name = json_member_name(member.name);
    auto it = object.find(name);
    if (it == object.end() || it->value().is_null()) return;  // absent: member keeps its default
    ctx.push_field(name);
    decode_value(it->value(), out.*member.pointer, ctx);
    ctx.pop();
  });
}

template <class T>
boost::json::value encode_struct(const T& in) {
  using Members = boost::describe::describe_members<T, boost::describe::mod_public>;
  static_assert(always_encoded_names_are_members<T>(),
                "json_always_encoded names a member the struct does not have");
  boost::json::object object;
  boost::mp11::mp_for_each<Members>([&](auto member) {
    const auto& value = in.*member.pointer;
    if (!always_encoded<T>(json_member_name(member.name)) && omitted_when_encoding(value)) return;
    object.emplace(json_member_name(member.name), encode_value(value));
  });
  return object;
}

template <class T>
void decode_value(const boost::json::value& in, T& out, DecodeContext& ctx) {
  using namespace codec_detail;
  if constexpr (has_custom_codec<T>) {
    decode_json(in, out, ctx);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (in.is_string()) {
      out = std::string(in.get_string());
    } else {
      ctx.report("expected string, got " + std::string(json_type_name(in)));
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (in.is_bool()) {
      out = in.get_bool();
    } else {
      ctx.report("expected boolean, got " + std::string(json_type_name(in)));
    }
  } else if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
    decode_integer(in, out, ctx);
  } else if constexpr (std::is_same_v<T, double>) {
    if (in.is_number()) {
      out = in.to_number<double>();
    } else {
      ctx.report("expected number, got " + std::string(json_type_name(in)));
    }
  } else if constexpr (std::is_same_v<T, boost::json::value>) {
    out = in;
  } else if constexpr (std::is_same_v<T, boost::json::object>) {
    if (in.is_object()) {
      out = in.get_object();
    } else {
      ctx.report("expected object, got " + std::string(json_type_name(in)));
    }
  } else if constexpr (is_optional<T>::value) {
    typename T::value_type value{};
    decode_value(in, value, ctx);
    out = std::move(value);
  } else if constexpr (is_vector<T>::value) {
    if (!in.is_array()) {
      ctx.report("expected array, got " + std::string(json_type_name(in)));
      return;
    }
    out.clear();
    const auto& array = in.get_array();
    out.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) {
      ctx.push_index(i);
      typename T::value_type item{};
      decode_value(array[i], item, ctx);
      out.push_back(std::move(item));
      ctx.pop();
    }
  } else if constexpr (is_string_map<T>::value) {
    if (!in.is_object()) {
      ctx.report("expected object, got " + std::string(json_type_name(in)));
      return;
    }
    out.clear();
    for (const auto& entry : in.get_object()) {
      ctx.push_key(entry.key());
      typename T::mapped_type item{};
      decode_value(entry.value(), item, ctx);
      out.emplace(std::string(entry.key()), std::move(item));
      ctx.pop();
    }
  } else if constexpr (described_struct<T>) {
    decode_struct(in, out, ctx);
  } else {
    static_assert(sizeof(T) == 0, "type is not supported by the JSON codec");
  }
}

template <class T>
boost::json::value encode_value(const T& in) {
  using namespace codec_detail;
  if constexpr (has_custom_codec<T>) {
    return encode_json(in);
  } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool> ||
                       std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                       std::is_same_v<T, double>) {
    return boost::json::value(in);
  } else if constexpr (std::is_same_v<T, boost::json::value>) {
    return in;
  } else if constexpr (std::is_same_v<T, boost::json::object>) {
    return boost::json::value(in);
  } else if constexpr (is_optional<T>::value) {
    return in ? encode_value(*in) : boost::json::value(nullptr);
  } else if constexpr (is_vector<T>::value) {
    boost::json::array array;
    array.reserve(in.size());
    for (const auto& item : in) array.push_back(encode_value(item));
    return array;
  } else if constexpr (is_string_map<T>::value) {
    boost::json::object object;
    for (const auto& [key, item] : in) object.emplace(key, encode_value(item));
    return object;
  } else if constexpr (described_struct<T>) {
    return encode_struct(in);
  } else {
    static_assert(sizeof(T) == 0, "type is not supported by the JSON codec");
  }
}

// Decodes a whole value; throws DecodeError listing every problem. `root` prefixes field paths;
// a context given by the caller can also tolerate unknown fields.
template <class T>
T decode(const boost::json::value& in, DecodeContext& ctx) {
  T out{};
  decode_value(in, out, ctx);
  if (ctx.failed()) throw DecodeError(ctx.take_problems());
  return out;
}

template <class T>
T decode(const boost::json::value& in, std::string root = {}) {
  DecodeContext ctx(std::move(root));
  return decode<T>(in, ctx);
}

template <class T>
boost::json::value encode(const T& in) {
  return encode_value(in);
}

}  // namespace nvcre::api
