// Evaluation of a checked tree. Runtime errors are values in CEL: `&&` and `||` absorb an error
// on either side when the other side decides the result (false && error == false,
// error || true == true), in both orders; everywhere else an error propagates.
#include "cel/ast.hpp"
#include "cel/go_format.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace nvcre::cel::detail {

namespace {

// A runtime error on its way up the tree: where it happened and what it is.
struct Failure {
  std::size_t offset;
  std::string detail;
};

[[noreturn]] void fail(const Node& node, std::string detail) {
  throw Failure{node.name_begin, std::move(detail)};
}

[[noreturn]] void no_overload(const Node& node, std::string_view op,
                              const std::vector<Value>& operands) {
  std::string kinds;
  for (const Value& value : operands)
    kinds += (kinds.empty() ? "" : ", ") + std::string(kind_name(value.kind()));
  fail(node, "no matching overload for \"" + std::string(op) + "\" on (" + kinds + ")");
}

std::string key_text(const Value& key) {
  switch (key.kind()) {
    case Kind::String:
      return key.as_string();
    case Kind::Int:
      return std::to_string(key.as_int());
    case Kind::Uint:
      return std::to_string(key.as_uint()) + "u";
    case Kind::Bool:
      return key.as_bool() ? "true" : "false";
    case Kind::Double:
      return format_go_float(key.as_double());
    default:
      return std::string(kind_name(key.kind()));
  }
}

std::int64_t utf8_length(const std::string& text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

Value arithmetic(const Node& node, const Value& a, const Value& b) {
  const std::string& op = node.name;
  if (a.kind() != b.kind()) no_overload(node, op, {a, b});
  const char o = op[0];
  if (a.is(Kind::Int)) {
    const std::int64_t x = a.as_int();
    const std::int64_t y = b.as_int();
    std::int64_t r = 0;
    if ((o == '/' || o == '%') && y == 0)
      fail(node, o == '/' ? "division by zero" : "modulus by zero");
    const bool overflow = o == '+'   ? __builtin_add_overflow(x, y, &r)
                          : o == '-' ? __builtin_sub_overflow(x, y, &r)
                          : o == '*' ? __builtin_mul_overflow(x, y, &r)
                                     : (x == std::numeric_limits<std::int64_t>::min() && y == -1);
    if (overflow) fail(node, "integer overflow");
    if (o == '/') r = x / y;
    if (o == '%') r = x % y;
    return Value::integer(r);
  }
  if (a.is(Kind::Uint)) {
    const std::uint64_t x = a.as_uint();
    const std::uint64_t y = b.as_uint();
    std::uint64_t r = 0;
    if ((o == '/' || o == '%') && y == 0)
      fail(node, o == '/' ? "division by zero" : "modulus by zero");
    const bool overflow = o == '+'   ? __builtin_add_overflow(x, y, &r)
                          : o == '-' ? __builtin_sub_overflow(x, y, &r)
                          : o == '*' ? __builtin_mul_overflow(x, y, &r)
                                     : false;
    if (overflow) fail(node, "unsigned integer overflow");
    if (o == '/') r = x / y;
    if (o == '%') r = x % y;
    return Value::unsigned_integer(r);
  }
  if (a.is(Kind::Double) && o != '%') {
    const double x = a.as_double();
    const double y = b.as_double();
    return Value::floating(o == '+' ? x + y : o == '-' ? x - y : o == '*' ? x * y : x / y);
  }
  if (o == '+' && a.is(Kind::String)) return Value::string(a.as_string() + b.as_string());
  if (o == '+' && a.is(Kind::List)) {
    List items = a.as_list();
    items.insert(items.end(), b.as_list().begin(), b.as_list().end());
    return Value::list(std::move(items));
  }
  no_overload(node, op, {a, b});
}

bool relation(const Node& node, const Value& a, const Value& b) {
  const std::string& op = node.name;
  if (op == "==") return equals(a, b);
  if (op == "!=") return !equals(a, b);
  if (op == "in") {
    if (b.is(Kind::List))
      return std::any_of(b.as_list().begin(), b.as_list().end(),
                         [&](const Value& item) { return equals(a, item); });
    if (b.is(Kind::Map)) return b.find(a) != nullptr;
    no_overload(node, op, {a, b});
  }
  std::optional<int> order;
  if (is_number(a.kind()) && is_number(b.kind())) {
    order = compare_numbers(a, b);
    if (!order) return false;  // NaN is unordered
  } else if (a.is(Kind::String) && b.is(Kind::String)) {
    order = a.as_string().compare(b.as_string());
  } else if (a.is(Kind::Bool) && b.is(Kind::Bool)) {
    order = static_cast<int>(a.as_bool()) - static_cast<int>(b.as_bool());
  } else {
    no_overload(node, op, {a, b});
  }
  return op == "<" ? *order < 0 : op == "<=" ? *order <= 0 : op == ">" ? *order > 0 : *order >= 0;
}

template <typename T>
T parse_number(const Node& node, const std::string& text, std::string_view type) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    fail(node, "cannot convert \"" + text + "\" to " + std::string(type));
  return value;
}

Value convert(const Node& node, const Value& v) {
  const std::string& f = node.name;
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (f == "string") {
    switch (v.kind()) {
      case Kind::String:
        return v;
      case Kind::Bool:
        return Value::string(v.as_bool() ? "true" : "false");
      case Kind::Int:
        return Value::string(std::to_string(v.as_int()));
      case Kind::Uint:
        return Value::string(std::to_string(v.as_uint()));
      case Kind::Double:
        return Value::string(format_go_float(v.as_double()));
      default:
        no_overload(node, f, {v});
    }
  }
  if (f == "double") {
    if (v.is(Kind::Int)) return Value::floating(static_cast<double>(v.as_int()));
    if (v.is(Kind::Uint)) return Value::floating(static_cast<double>(v.as_uint()));
    if (v.is(Kind::Double)) return v;
    if (v.is(Kind::String))
      return Value::floating(parse_number<double>(node, v.as_string(), "double"));
    no_overload(node, f, {v});
  }
  if (f == "int") {
    if (v.is(Kind::Int)) return v;
    if (v.is(Kind::Uint) &&
        v.as_uint() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return Value::integer(static_cast<std::int64_t>(v.as_uint()));
    if (v.is(Kind::Double) && v.as_double() >= -kTwoTo63 && v.as_double() < kTwoTo63)
      return Value::integer(static_cast<std::int64_t>(v.as_double()));
    if (v.is(Kind::String))
      return Value::integer(parse_number<std::int64_t>(node, v.as_string(), "int"));
    if (is_number(v.kind())) fail(node, "integer overflow");
    no_overload(node, f, {v});
  }
  if (v.is(Kind::Uint)) return v;
  if (v.is(Kind::Int) && v.as_int() >= 0)
    return Value::unsigned_integer(static_cast<std::uint64_t>(v.as_int()));
  if (v.is(Kind::Double) && v.as_double() >= 0 && v.as_double() < 2 * kTwoTo63)
    return Value::unsigned_integer(static_cast<std::uint64_t>(v.as_double()));
  if (v.is(Kind::String))
    return Value::unsigned_integer(parse_number<std::uint64_t>(node, v.as_string(), "uint"));
  if (is_number(v.kind())) fail(node, "unsigned integer overflow");
  no_overload(node, f, {v});
}

class Evaluator {
 public:
  explicit Evaluator(const Activation& activation) : activation_(activation) {}

  Value eval(const Node& node) const {
    switch (node.kind) {
      case Node::Kind::Literal:
        return node.literal;
      case Node::Kind::Ident: {
        for (auto local = locals_.rbegin(); local != locals_.rend(); ++local) {
          if (local->first == node.name) return local->second;
        }
        const auto found = activation_.find(node.name);
        if (found == activation_.end()) fail(node, "no value for variable \"" + node.name + "\"");
        return found->second;
      }
      case Node::Kind::List: {
        List items;
        for (const Node& child : node.children) items.push_back(eval(child));
        return Value::list(std::move(items));
      }
      case Node::Kind::Map:
        return map_literal(node);
      case Node::Kind::Select:
        return select(node);
      case Node::Kind::Index:
        return index(node);
      case Node::Kind::Call:
        return call(node);
      case Node::Kind::Unary:
        return unary(node);
      case Node::Kind::Binary:
        return binary(node);
      case Node::Kind::Comprehension:
        return comprehension(node);
      case Node::Kind::Conditional:
        break;
    }
    const Value condition = eval(node.children[0]);
    if (!condition.is(Kind::Bool)) no_overload(node, "?:", {condition});
    return eval(node.children[condition.as_bool() ? 1 : 2]);
  }

 private:
  Value map_literal(const Node& node) const {
    MapEntries entries;
    for (std::size_t i = 0; i + 1 < node.children.size(); i += 2) {
      Value key = eval(node.children[i]);
      if (!key.is(Kind::String) && !key.is(Kind::Int) && !key.is(Kind::Uint) && !key.is(Kind::Bool))
        fail(node.children[i], "map keys must be string, int, uint or bool, got " +
                                   std::string(kind_name(key.kind())));
      for (const auto& entry : entries) {
        if (equals(entry.first, key)) fail(node.children[i], "repeated map key " + key_text(key));
      }
      entries.emplace_back(std::move(key), eval(node.children[i + 1]));
    }
    return Value::map(std::move(entries));
  }

  Value select(const Node& node) const {
    const Value operand = eval(node.children[0]);
    if (!operand.is(Kind::Map))
      fail(node, "no field \"" + node.name + "\" on a value of type " +
                     std::string(kind_name(operand.kind())));
    const Value* found = operand.find(Value::string(node.name));
    if (node.test_only) return Value::boolean(found != nullptr);
    if (found == nullptr) fail(node, "no such key: " + node.name);
    return *found;
  }

  Value index(const Node& node) const {
    const Value operand = eval(node.children[0]);
    const Value key = eval(node.children[1]);
    if (operand.is(Kind::Map)) {
      const Value* found = operand.find(key);
      if (found == nullptr) fail(node, "no such key: " + key_text(key));
      return *found;
    }
    if (!operand.is(Kind::List) || !(key.is(Kind::Int) || key.is(Kind::Uint)))
      no_overload(node, "[]", {operand, key});
    const List& items = operand.as_list();
    const bool negative = key.is(Kind::Int) && key.as_int() < 0;
    const std::uint64_t i =
        key.is(Kind::Int) ? static_cast<std::uint64_t>(key.as_int()) : key.as_uint();
    if (negative || i >= items.size())
      fail(node, "index " + key_text(key) + " out of range in a list of size " +
                     std::to_string(items.size()));
    return items[i];
  }

  Value call(const Node& node) const {
    std::vector<Value> args;
    for (const Node& child : node.children) args.push_back(eval(child));
    const std::string& f = node.name;
    if (f == "size" && args.size() == 1) {
      const Value& v = args[0];
      if (v.is(Kind::String)) return Value::integer(utf8_length(v.as_string()));
      if (v.is(Kind::List)) return Value::integer(static_cast<std::int64_t>(v.as_list().size()));
      if (v.is(Kind::Map)) return Value::integer(static_cast<std::int64_t>(v.as_map().size()));
    } else if ((f == "startsWith" || f == "endsWith" || f == "contains") && args.size() == 2) {
      if (args[0].is(Kind::String) && args[1].is(Kind::String)) {
        const std::string& s = args[0].as_string();
        const std::string& t = args[1].as_string();
        return Value::boolean(f == "startsWith" ? s.starts_with(t)
                              : f == "endsWith" ? s.ends_with(t)
                                                : s.find(t) != std::string::npos);
      }
    } else if (f == "matches" && args.size() == 2) {
      if (args[0].is(Kind::String) && args[1].is(Kind::String))
        return Value::boolean(matches(node, args[0].as_string(), args[1].as_string()));
    } else if ((f == "lowerAscii" || f == "upperAscii") && args.size() == 1) {
      if (args[0].is(Kind::String)) {
        std::string text = args[0].as_string();
        for (char& c : text) {
          if (f == "lowerAscii" && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
          if (f == "upperAscii" && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
        }
        return Value::string(std::move(text));
      }
    } else if (args.size() == 1) {
      return convert(node, args[0]);
    }
    no_overload(node, f, args);
  }

  // RE2 syntax, matching anywhere in the text (anchor with ^ and $), as CEL's matches().
  static bool matches(const Node& node, const std::string& text, const std::string& pattern) {
    if (node.regex) return re2::RE2::PartialMatch(text, *node.regex);
    const re2::RE2 regex(pattern, re2::RE2::Quiet);
    if (!regex.ok()) fail(node, "invalid RE2 regular expression: " + regex.error());
    return re2::RE2::PartialMatch(text, regex);
  }

  // Binds the iteration variable for the life of one macro evaluation.
  class Binding {
   public:
    Binding(std::vector<std::pair<std::string, Value>>& locals, const std::string& name)
        : locals_(locals) {
      locals_.emplace_back(name, Value());
    }
    ~Binding() { locals_.pop_back(); }
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;
    void set(const Value& value) { locals_.back().second = value; }

   private:
    std::vector<std::pair<std::string, Value>>& locals_;
  };

  bool condition(const Node& macro, const Node& expression) const {
    const Value v = eval(expression);
    if (!v.is(Kind::Bool)) no_overload(macro, macro.name, {v});
    return v.as_bool();
  }

  // all() and exists() absorb errors as && and || do: one decisive element decides. The other
  // macros propagate the first error.
  Value comprehension(const Node& node) const {
    const Value range = eval(node.children[0]);
    List items;
    if (range.is(Kind::List)) {
      items = range.as_list();
    } else if (range.is(Kind::Map)) {
      for (const auto& entry : range.as_map()) items.push_back(entry.first);
    } else {
      no_overload(node, node.name, {range});
    }
    Binding binding(locals_, node.variable);
    const std::string& macro = node.name;
    if (macro == "all" || macro == "exists") {
      const bool decisive = macro == "exists";
      std::optional<Failure> error;
      for (const Value& item : items) {
        binding.set(item);
        try {
          if (condition(node, node.children[1]) == decisive) return Value::boolean(decisive);
        } catch (const Failure& failure) {
          if (!error) error = failure;
        }
      }
      if (error) throw *error;
      return Value::boolean(!decisive);
    }
    if (macro == "exists_one") {
      std::size_t count = 0;
      for (const Value& item : items) {
        binding.set(item);
        count += condition(node, node.children[1]) ? 1 : 0;
      }
      return Value::boolean(count == 1);
    }
    const bool filters = macro == "filter" || node.children.size() == 3;
    List out;
    for (const Value& item : items) {
      binding.set(item);
      if (filters && !condition(node, node.children[1])) continue;
      out.push_back(macro == "filter" ? item : eval(node.children.back()));
    }
    return Value::list(std::move(out));
  }

  Value unary(const Node& node) const {
    const Value v = eval(node.children[0]);
    if (node.name == "!" && v.is(Kind::Bool)) return Value::boolean(!v.as_bool());
    if (node.name == "-" && v.is(Kind::Double)) return Value::floating(-v.as_double());
    if (node.name == "-" && v.is(Kind::Int)) {
      if (v.as_int() == std::numeric_limits<std::int64_t>::min()) fail(node, "integer overflow");
      return Value::integer(-v.as_int());
    }
    no_overload(node, node.name, {v});
  }

  Value binary(const Node& node) const {
    if (node.name == "&&" || node.name == "||") return logical(node);
    const Value a = eval(node.children[0]);
    const Value b = eval(node.children[1]);
    if (node.name.size() == 1 &&
        std::string_view("+-*/%").find(node.name[0]) != std::string_view::npos)
      return arithmetic(node, a, b);
    return Value::boolean(relation(node, a, b));
  }

  // `decisive` is false for && and true for ||: one decisive operand decides, whatever the other
  // is, even an error.
  Value logical(const Node& node) const {
    const bool decisive = node.name == "||";
    std::optional<Failure> error;
    for (const Node& operand : node.children) {
      try {
        const Value v = eval(operand);
        if (!v.is(Kind::Bool)) no_overload(node, node.name, {v});
        if (v.as_bool() == decisive) return v;
      } catch (const Failure& failure) {
        if (!error) error = failure;
      }
    }
    if (error) throw *error;
    return Value::boolean(!decisive);
  }

  const Activation& activation_;
  // The iteration variables of the macros being evaluated, innermost last; they shadow the
  // activation.
  mutable std::vector<std::pair<std::string, Value>> locals_;
};

}  // namespace

Value evaluate(const Node& root, const Diagnostics& diagnostics, const Activation& activation) {
  try {
    return Evaluator(activation).eval(root);
  } catch (const Failure& failure) {
    diagnostics.evaluation_error(failure.offset, failure.detail);
  }
}

}  // namespace nvcre::cel::detail
