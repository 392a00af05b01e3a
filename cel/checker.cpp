// The static half of CEL's type checking. Numbers compare across int, uint and double (CEL's
// cross-type numeric comparison); arithmetic needs both operands of one type (CEL converts
// nothing implicitly: `value + 1` on a double is an error, `value + 1.0` is not). A dyn operand
// passes here and is checked when the expression runs.
#include "cel/ast.hpp"

#include <re2/re2.h>

#include <algorithm>

namespace nvcre::cel::detail {

namespace {

using Tag = Type::Tag;

// Whether values of the two types may be equal: the same type, a dyn anywhere, or two numbers.
bool compatible(const Type& a, const Type& b) {
  if (a.is_dyn() || b.is_dyn() || (a.is_number() && b.is_number())) return true;
  if (a.tag() != b.tag()) return false;
  if (a.is(Tag::List)) return compatible(a.element(), b.element());
  if (a.is(Tag::Map)) return compatible(a.key(), b.key()) && compatible(a.value(), b.value());
  return true;
}

// The type two branches or elements share: theirs when equal, else dyn.
Type join(const Type& a, const Type& b) { return a == b ? a : Type::dyn(); }

bool is_bool(const Type& t) { return t.is_dyn() || t.is(Tag::Bool); }

class Checker {
 public:
  Checker(const Diagnostics& diagnostics, const Environment& environment)
      : diagnostics_(diagnostics), environment_(environment), features_(environment.features) {}

  void check(Node& node) {
    if (node.kind == Node::Kind::Comprehension) {
      node.type = comprehension_type(node);
      return;
    }
    for (Node& child : node.children) check(child);
    switch (node.kind) {
      case Node::Kind::Literal:
        node.type = literal_type(node.literal);
        return;
      case Node::Kind::Ident:
        node.type = variable_type(node.name);
        return;
      case Node::Kind::List:
        node.type = list_type(node);
        return;
      case Node::Kind::Map:
        node.type = map_type(node);
        return;
      case Node::Kind::Select:
        node.type = select_type(node);
        return;
      case Node::Kind::Index:
        node.type = index_type(node);
        return;
      case Node::Kind::Call:
        node.type = call_type(node);
        if (node.name == "matches") compile_literal_pattern(node);
        return;
      case Node::Kind::Unary:
        node.type = unary_type(node);
        return;
      case Node::Kind::Binary:
        node.type = binary_type(node);
        return;
      case Node::Kind::Conditional:
      case Node::Kind::Comprehension:
        break;
    }
    const auto& c = node.children;
    if (!is_bool(c[0].type)) mismatch(node, "?:", {c[0].type, c[1].type, c[2].type});
    node.type = join(c[1].type, c[2].type);
  }

 private:
  [[noreturn]] void mismatch(const Node& node, std::string_view op,
                             const std::vector<Type>& types) const {
    std::string names;
    for (const Type& type : types) names += (names.empty() ? "" : ", ") + type.name();
    diagnostics_.unsupported(
        node.begin, node.end,
        "no matching overload for \"" + std::string(op) + "\" on (" + names + ")");
  }

  static Type literal_type(const Value& value) {
    switch (value.kind()) {
      case Kind::Null:
        return Type::null();
      case Kind::Bool:
        return Type::boolean();
      case Kind::Int:
        return Type::integer();
      case Kind::Uint:
        return Type::unsigned_integer();
      case Kind::Double:
        return Type::floating();
      default:
        return Type::string();
    }
  }

  Type variable_type(const std::string& name) const {
    for (auto local = locals_.rbegin(); local != locals_.rend(); ++local) {
      if (local->name == name) return local->type;
    }
    const auto& variables = environment_.variables;
    return std::find_if(variables.begin(), variables.end(),
                        [&](const Variable& v) { return v.name == name; })
        ->type;
  }

  // The macros: the range is a list (the variable takes its elements) or a map (its keys).
  Type comprehension_type(Node& node) {
    Node& range = node.children[0];
    check(range);
    const std::string& macro = node.name;
    Type element = Type::dyn();
    if (range.type.is(Tag::List)) {
      element = range.type.element();
    } else if (range.type.is(Tag::Map)) {
      element = range.type.key();
    } else if (!range.type.is_dyn()) {
      diagnostics_.unsupported(
          range.begin, node.end,
          macro + "() needs a list or a map to range over, got " + range.type.name());
    }
    locals_.push_back({node.variable, element});
    for (std::size_t i = 1; i < node.children.size(); ++i) check(node.children[i]);
    locals_.pop_back();
    const bool has_condition = macro != "map" || node.children.size() == 3;
    const Node& condition = node.children[1];
    if (has_condition && !is_bool(condition.type)) {
      diagnostics_.unsupported(condition.begin, condition.end,
                               macro + "() needs a bool condition, got " + condition.type.name());
    }
    if (macro == "filter") return Type::list(element);
    if (macro == "map") return Type::list(node.children.back().type);
    return Type::boolean();
  }

  // A literal pattern is compiled here, so that a bad one fails before anything runs.
  void compile_literal_pattern(Node& call) const {
    const Node& pattern = call.children.back();
    if (pattern.kind != Node::Kind::Literal || !pattern.literal.is(Kind::String)) return;
    auto regex = std::make_shared<const re2::RE2>(pattern.literal.as_string(), re2::RE2::Quiet);
    if (!regex->ok()) {
      diagnostics_.unsupported(pattern.begin, pattern.end,
                               "invalid RE2 regular expression: " + regex->error());
    }
    call.regex = std::move(regex);
  }

  Type list_type(const Node& list) const {
    std::optional<Type> element;
    for (const Node& item : list.children) {
      if (!features_.mixed_lists && item.type.is(Tag::List))
        diagnostics_.unsupported(item.begin, item.end, "nested lists");
      if (element && !features_.mixed_lists && !(*element == item.type))
        diagnostics_.unsupported(list.begin, item.end, "list elements of different types");
      element = element ? join(*element, item.type) : item.type;
    }
    return Type::list(element.value_or(Type::dyn()));
  }

  Type map_type(const Node& map) const {
    std::optional<Type> key;
    std::optional<Type> value;
    for (std::size_t i = 0; i + 1 < map.children.size(); i += 2) {
      const Node& k = map.children[i];
      if (!k.type.is_dyn() && !k.type.is(Tag::String) && !k.type.is(Tag::Int) &&
          !k.type.is(Tag::Uint) && !k.type.is(Tag::Bool)) {
        diagnostics_.unsupported(
            k.begin, k.end, "map keys must be string, int, uint or bool, got " + k.type.name());
      }
      key = key ? join(*key, k.type) : k.type;
      value = value ? join(*value, map.children[i + 1].type) : map.children[i + 1].type;
    }
    return Type::map(key.value_or(Type::dyn()), value.value_or(Type::dyn()));
  }

  Type select_type(const Node& select) const {
    const Type& operand = select.children[0].type;
    if (!operand.is_dyn() && !(operand.is(Tag::Map) && compatible(operand.key(), Type::string()))) {
      diagnostics_.unsupported(
          select.begin, select.end,
          "field selection needs a map with string keys, got " + operand.name());
    }
    if (select.test_only) return Type::boolean();
    return operand.is_dyn() ? Type::dyn() : operand.value();
  }

  Type index_type(const Node& index) const {
    const Type& operand = index.children[0].type;
    const Type& key = index.children[1].type;
    if (operand.is_dyn()) return Type::dyn();
    if (operand.is(Tag::List) && (key.is_dyn() || key.is(Tag::Int) || key.is(Tag::Uint)))
      return operand.element();
    if (operand.is(Tag::Map) && compatible(operand.key(), key)) return operand.value();
    mismatch(index, "[]", {operand, key});
  }

  Type call_type(const Node& call) const {
    std::vector<Type> types;
    for (const Node& child : call.children) types.push_back(child.type);
    const std::string& f = call.name;
    const bool one = types.size() == 1;
    if (f == "size" && one &&
        (types[0].is_dyn() || types[0].is(Tag::String) || types[0].is(Tag::List) ||
         types[0].is(Tag::Map))) {
      return Type::integer();
    }
    const bool strings = std::all_of(types.begin(), types.end(),
                                     [](const Type& t) { return t.is_dyn() || t.is(Tag::String); });
    if (f == "matches" && types.size() == 2 && strings) return Type::boolean();
    if ((f == "lowerAscii" || f == "upperAscii") && one && strings) return Type::string();
    if ((f == "startsWith" || f == "endsWith" || f == "contains") && types.size() == 2 &&
        (types[0].is_dyn() || types[0].is(Tag::String)) &&
        (types[1].is_dyn() || types[1].is(Tag::String))) {
      return Type::boolean();
    }
    if (one && (f == "int" || f == "uint" || f == "double") &&
        (types[0].is_dyn() || types[0].is_number() || types[0].is(Tag::String))) {
      return f == "int"    ? Type::integer()
             : f == "uint" ? Type::unsigned_integer()
                           : Type::floating();
    }
    if (one && f == "string" &&
        (types[0].is_dyn() || types[0].is_number() || types[0].is(Tag::String) ||
         types[0].is(Tag::Bool))) {
      return Type::string();
    }
    std::string signature = call.receiver_call ? types[0].name() + "." + f + "(" : f + "(";
    for (std::size_t i = call.receiver_call ? 1 : 0; i < types.size(); ++i)
      signature += (signature.back() == '(' ? "" : ", ") + types[i].name();
    diagnostics_.unsupported(call.begin, call.end, "no matching overload for " + signature + ")");
  }

  Type unary_type(const Node& node) const {
    const Type& operand = node.children[0].type;
    const bool is_not = node.name == "!";
    const bool ok = operand.is_dyn() || (is_not ? operand.is(Tag::Bool)
                                                : operand.is(Tag::Int) || operand.is(Tag::Double));
    if (!ok) {
      diagnostics_.unsupported(
          node.begin, node.end,
          "no matching overload for unary \"" + node.name + "\" on " + operand.name());
    }
    return is_not ? Type::boolean() : operand;
  }

  Type binary_type(const Node& node) const {
    const Type& a = node.children[0].type;
    const Type& b = node.children[1].type;
    const std::string& op = node.name;
    if (op == "&&" || op == "||") {
      if (!is_bool(a) || !is_bool(b)) mismatch(node, op, {a, b});
      return Type::boolean();
    }
    if (op == "in") {
      const bool ok = b.is_dyn() ||
                      (b.is(Tag::List) && !a.is(Tag::List) && compatible(a, b.element())) ||
                      (b.is(Tag::Map) && compatible(a, b.key()));
      if (!ok) mismatch(node, op, {a, b});
      return Type::boolean();
    }
    if (op == "==" || op == "!=") {
      const bool composite = a.is(Tag::List) || a.is(Tag::Map) || b.is(Tag::List) || b.is(Tag::Map);
      const bool with_null = a.is(Tag::Null) || b.is(Tag::Null);
      if ((!compatible(a, b) && !with_null) || (composite && !features_.composite_comparisons))
        mismatch(node, op, {a, b});
      return Type::boolean();
    }
    if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      const bool ordered =
          (a.is_number() && b.is_number()) || a.is_dyn() || b.is_dyn() ||
          (a == b && (a.is(Tag::String) || (a.is(Tag::Bool) && features_.composite_comparisons)));
      if (!ordered) mismatch(node, op, {a, b});
      return Type::boolean();
    }
    return arithmetic_type(node, a, b);
  }

  Type arithmetic_type(const Node& node, const Type& a, const Type& b) const {
    const std::string& op = node.name;
    if (a.is_dyn() || b.is_dyn()) {
      const Type& known = a.is_dyn() ? b : a;
      const bool possible = known.is_dyn() || known.is_number() ||
                            (op == "+" && (known.is(Tag::String) || known.is(Tag::List)));
      if (!possible || (op == "%" && known.is(Tag::Double))) mismatch(node, op, {a, b});
      return Type::dyn();
    }
    const bool same_number = a.is_number() && a == b && !(op == "%" && a.is(Tag::Double));
    if (same_number) return a;
    if (op == "+" && a.is(Tag::String) && b.is(Tag::String)) return a;
    if (op == "+" && a.is(Tag::List) && b.is(Tag::List))
      return Type::list(join(a.element(), b.element()));
    mismatch(node, op, {a, b});
  }

  const Diagnostics& diagnostics_;
  const Environment& environment_;
  const Features& features_;
  std::vector<Variable> locals_;  // iteration variables of the enclosing macros, innermost last
};

}  // namespace

void check(Node& root, const Diagnostics& diagnostics, const Environment& environment) {
  Checker(diagnostics, environment).check(root);
}

}  // namespace nvcre::cel::detail
