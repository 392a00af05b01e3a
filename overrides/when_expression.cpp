#include "overrides/when_expression.hpp"

#include "overrides/override_error.hpp"
#include "overrides/when_expression_lexer.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

namespace nvcre::overrides {

const std::string_view kSupportedCelSubset =
    "variables platform, gpuArchitecture, workloadKind, topologyMode (string) and domainCount "
    "(int); "
    "string, int, bool and list literals; ==, !=, <, <=, >, >=, in, &&, ||, !, unary -, "
    "parentheses; s.startsWith(t), s.endsWith(t), s.contains(t)";

namespace {

// Nesting limit so that hostile input ("((((...") cannot exhaust the stack.
constexpr int kMaxDepth = 100;

using cel::Token;
using cel::TokenKind;

enum class Type { kBool, kInt, kString, kList };

// Evaluation happens while parsing: the subset has no side effects and no runtime errors, so
// eager evaluation of both sides of && / || yields the same result as CEL's short-circuiting,
// and it makes every sub-expression type-checked whatever the variable values are.
struct Value {
  Type type = Type::kBool;
  bool boolean = false;
  std::int64_t integer = 0;
  std::string string;
  std::vector<Value> items;          // kList
  std::optional<Type> element_type;  // kList; empty for []
  std::size_t begin = 0;
  std::size_t end = 0;
};

std::string type_name(const Value& value) {
  switch (value.type) {
    case Type::kBool:
      return "bool";
    case Type::kInt:
      return "int";
    case Type::kString:
      return "string";
    case Type::kList:
      break;
  }
  if (!value.element_type) return "list";
  Value element;
  element.type = *value.element_type;
  return "list(" + type_name(element) + ")";
}

class Evaluator {
 public:
  Evaluator(std::string_view source, const ExpressionVariables& variables)
      : diagnostics_(source), variables_(variables) {}

  bool run() {
    tokens_ = cel::tokenize(diagnostics_);
    if (tokens_.size() == 1) syntax_error(0, "empty expression");
    Value result = parse_expression();
    if (peek().kind != TokenKind::kEnd)
      syntax_error(peek().begin, "unexpected \"" + token_text(peek()) + "\"");
    if (result.type != Type::kBool) {
      unsupported(result.begin, result.end,
                  "the expression must evaluate to bool, got " + type_name(result));
    }
    return result.boolean;
  }

 private:
  [[noreturn]] void unsupported(std::size_t begin, std::size_t end,
                                const std::string& detail) const {
    diagnostics_.unsupported(begin, end, detail);
  }
  [[noreturn]] void syntax_error(std::size_t offset, const std::string& detail) const {
    diagnostics_.syntax_error(offset, detail);
  }
  std::string token_text(const Token& token) const { return diagnostics_.token_text(token); }

  const Token& peek() const { return tokens_[next_]; }
  const Token& take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }
  bool peek_symbol(std::string_view symbol) const {
    return peek().kind == TokenKind::kSymbol && peek().text == symbol;
  }

  // Symbols that are CEL but outside the subset get the "unsupported" message, not a syntax error.
  [[noreturn]] void reject_symbol(const Token& token) const {
    static const std::pair<std::string_view, std::string_view> kKnown[] = {
        {"+", "arithmetic"},
        {"-", "arithmetic"},
        {"*", "arithmetic"},
        {"/", "arithmetic"},
        {"%", "arithmetic"},
        {"?", "conditional operator ?:"},
        {":", "conditional operator ?:"},
        {"{", "map and message literals"},
        {"[", "indexing"},
        {".", "field selection"}};
    for (const auto& [symbol, what] : kKnown) {
      if (token.kind == TokenKind::kSymbol && token.text == symbol)
        unsupported(token.begin, token.end, std::string(what));
    }
    syntax_error(token.begin, "unexpected \"" + token_text(token) + "\"");
  }

  void enter() {
    if (++depth_ > kMaxDepth) syntax_error(peek().begin, "expression nested too deeply");
  }

  Value parse_expression() {
    enter();
    Value value = parse_logical(0);
    if (peek_symbol("?")) reject_symbol(peek());
    --depth_;
    return value;
  }

  // level 0: ||, level 1: &&.
  Value parse_logical(int level) {
    const std::string_view op = level == 0 ? "||" : "&&";
    Value left = level == 0 ? parse_logical(1) : parse_relation();
    while (peek_symbol(op)) {
      take();
      Value right = level == 0 ? parse_logical(1) : parse_relation();
      if (left.type != Type::kBool || right.type != Type::kBool) mismatch(op, left, right);
      left.boolean = level == 0 ? (left.boolean || right.boolean) : (left.boolean && right.boolean);
      left.end = right.end;
    }
    return left;
  }

  [[noreturn]] void mismatch(std::string_view op, const Value& left, const Value& right) const {
    unsupported(left.begin, right.end,
                "no matching overload for \"" + std::string(op) + "\" on (" + type_name(left) +
                    ", " + type_name(right) + ")");
  }

  Value parse_relation() {
    Value left = parse_unary();
    while (true) {
      const Token& token = peek();
      const bool is_in = token.kind == TokenKind::kIdentifier && token.text == "in";
      static constexpr std::string_view kRelations[] = {"==", "!=", "<", "<=", ">", ">="};
      const bool is_relation = token.kind == TokenKind::kSymbol &&
                               std::find(std::begin(kRelations), std::end(kRelations),
                                         token.text) != std::end(kRelations);
      if (!is_in && !is_relation) {
        if (token.kind == TokenKind::kSymbol &&
            std::string_view("+-*/%").find(token.text) != std::string_view::npos) {
          reject_symbol(token);
        }
        return left;
      }
      const std::string op = take().text;
      Value right = parse_unary();
      left = relate(op, std::move(left), right);
    }
  }

  Value relate(const std::string& op, Value left, const Value& right) const {
    Value result;
    result.begin = left.begin;
    result.end = right.end;
    if (op == "in") {
      if (right.type != Type::kList || left.type == Type::kList ||
          (right.element_type && *right.element_type != left.type)) {
        mismatch(op, left, right);
      }
      result.boolean = std::any_of(right.items.begin(), right.items.end(), [&](const Value& item) {
        return item.integer == left.integer && item.string == left.string &&
               item.boolean == left.boolean;
      });
      return result;
    }
    if (left.type != right.type || left.type == Type::kList) mismatch(op, left, right);
    if (op == "==" || op == "!=") {
      const bool equal = left.boolean == right.boolean && left.integer == right.integer &&
                         left.string == right.string;
      result.boolean = op == "==" ? equal : !equal;
      return result;
    }
    if (left.type == Type::kBool) mismatch(op, left, right);
    const int order = left.type == Type::kInt ? (left.integer < right.integer   ? -1
                                                 : left.integer > right.integer ? 1
                                                                                : 0)
                                              : left.string.compare(right.string);
    result.boolean = op == "<"    ? order < 0
                     : op == "<=" ? order <= 0
                     : op == ">"  ? order > 0
                                  : order >= 0;
    return result;
  }

  Value parse_unary() {
    if (peek_symbol("!") || peek_symbol("-")) {
      enter();
      const Token op = take();
      Value operand = parse_unary();
      --depth_;
      const bool is_not = op.text == "!";
      if (operand.type != (is_not ? Type::kBool : Type::kInt)) {
        unsupported(op.begin, operand.end,
                    "no matching overload for unary \"" + op.text + "\" on " + type_name(operand));
      }
      if (is_not) {
        operand.boolean = !operand.boolean;
      } else {
        if (operand.integer == std::numeric_limits<std::int64_t>::min())
          syntax_error(op.begin, "integer overflow");
        operand.integer = -operand.integer;
      }
      operand.begin = op.begin;
      return operand;
    }
    return parse_member();
  }

  Value parse_member() {
    Value value = parse_primary();
    while (true) {
      if (peek_symbol("[")) reject_symbol(peek());
      if (!peek_symbol(".")) return value;
      const Token dot = take();
      const Token name = take();
      if (name.kind != TokenKind::kIdentifier)
        syntax_error(name.begin, "expected a name after \".\"");
      if (!peek_symbol("(")) unsupported(dot.begin, name.end, "field selection");
      value = call_method(std::move(value), name, parse_arguments());
    }
  }

  std::vector<Value> parse_arguments() {
    take();  // "("
    std::vector<Value> arguments;
    if (!peek_symbol(")")) {
      arguments.push_back(parse_expression());
      while (peek_symbol(",")) {
        take();
        arguments.push_back(parse_expression());
      }
    }
    if (!peek_symbol(")"))
      syntax_error(peek().begin, "expected \")\", got \"" + token_text(peek()) + "\"");
    last_end_ = take().end;
    return arguments;
  }

  Value call_method(Value receiver, const Token& name, const std::vector<Value>& arguments) const {
    const bool known =
        name.text == "startsWith" || name.text == "endsWith" || name.text == "contains";
    if (!known) unsupported(name.begin, name.end, "unknown function");
    if (receiver.type != Type::kString || arguments.size() != 1 ||
        arguments[0].type != Type::kString) {
      std::string signature = type_name(receiver) + "." + name.text + "(";
      for (std::size_t i = 0; i < arguments.size(); ++i)
        signature += (i ? ", " : "") + type_name(arguments[i]);
      unsupported(receiver.begin, last_end_, "no matching overload for " + signature + ")");
    }
    const std::string& s = receiver.string;
    const std::string& t = arguments[0].string;
    Value result;
    result.begin = receiver.begin;
    result.end = last_end_;
    result.boolean = name.text == "startsWith" ? s.starts_with(t)
                     : name.text == "endsWith" ? s.ends_with(t)
                                               : s.find(t) != std::string::npos;
    return result;
  }

  Value parse_primary() {
    const Token token = take();
    Value value;
    value.begin = token.begin;
    value.end = token.end;
    switch (token.kind) {
      case TokenKind::kEnd:
        syntax_error(token.begin, "unexpected end of expression");
      case TokenKind::kInt:
        value.type = Type::kInt;
        value.integer = token.integer;
        return value;
      case TokenKind::kString:
        value.type = Type::kString;
        value.string = token.text;
        return value;
      case TokenKind::kIdentifier:
        return identifier(token, std::move(value));
      case TokenKind::kSymbol:
        break;
    }
    if (token.text == "(") {
      Value inner = parse_expression();
      if (!peek_symbol(")"))
        syntax_error(peek().begin, "expected \")\", got \"" + token_text(peek()) + "\"");
      inner.begin = token.begin;
      inner.end = take().end;
      return inner;
    }
    if (token.text == "[") return list_literal(std::move(value));
    reject_symbol(token);
  }

  Value identifier(const Token& token, Value value) {
    if (peek_symbol("(")) unsupported(token.begin, token.end, "global function call");
    const std::string& name = token.text;
    value.type = Type::kString;
    if (name == "true" || name == "false") {
      value.type = Type::kBool;
      value.boolean = name == "true";
    } else if (name == "platform") {
      value.string = variables_.platform;
    } else if (name == "gpuArchitecture") {
      value.string = variables_.gpuArchitecture;
    } else if (name == "workloadKind") {
      value.string = variables_.workloadKind;
    } else if (name == "topologyMode") {
      value.string = variables_.topologyMode;
    } else if (name == "domainCount") {
      value.type = Type::kInt;
      value.integer = variables_.domainCount;
    } else if (name == "in") {
      syntax_error(token.begin, "unexpected \"in\"");
    } else {
      unsupported(token.begin, token.end, name == "null" ? "null" : "unknown identifier");
    }
    return value;
  }

  Value list_literal(Value list) {
    list.type = Type::kList;
    while (!peek_symbol("]")) {
      Value item = parse_expression();
      if (item.type == Type::kList) unsupported(item.begin, item.end, "nested lists");
      if (list.element_type && *list.element_type != item.type) {
        unsupported(list.begin, item.end, "list elements of different types");
      }
      list.element_type = item.type;
      list.items.push_back(std::move(item));
      if (peek_symbol(",")) {
        take();
      } else if (!peek_symbol("]")) {
        syntax_error(peek().begin, "expected \",\" or \"]\", got \"" + token_text(peek()) + "\"");
      }
    }
    list.end = take().end;
    return list;
  }

  cel::Diagnostics diagnostics_;
  const ExpressionVariables& variables_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
  std::size_t last_end_ = 0;
  int depth_ = 0;
};

}  // namespace

bool evaluate_when_expression(std::string_view expression, const ExpressionVariables& variables) {
  return Evaluator(expression, variables).run();
}

}  // namespace nvcre::overrides
