// Recursive descent over CEL's grammar:
//   expr     = or ['?' or ':' expr]          or   = and {'||' and}       and = relation {'&&'
//   relation} relation = sum {('<'|'<='|'>'|'>='|'=='|'!='|'in') sum} sum      = product {('+'|'-')
//   product}   product = unary {('*'|'/'|'%') unary} unary    = ('!'|'-') unary | member member =
//   primary {'.' NAME ['(' args ')'] | '[' expr ']'} primary  = literal | NAME ['(' args ')'] | '('
//   expr ')' | '[' list ']' | '{' map '}'
#include "cel/ast.hpp"
#include "cel/lexer.hpp"

#include <algorithm>
#include <limits>

namespace nvcre::cel::detail {

namespace {

// Nesting limit so that hostile input ("((((...") cannot exhaust the stack of the parser, the
// checker or the evaluator (each recurses along the tree).
constexpr int kMaxDepth = 100;

constexpr std::string_view kGlobalFunctions[] = {"size",   "has",    "int",    "uint",
                                                 "double", "string", "matches"};
// Receiver functions beyond the three string tests every environment has.
constexpr std::string_view kReceiverFunctions[] = {"size", "matches", "lowerAscii", "upperAscii"};
constexpr std::string_view kMacros[] = {"all", "exists", "exists_one", "map", "filter"};
constexpr std::string_view kReserved[] = {"true", "false", "null", "in"};

bool one_of(std::string_view name, const auto& names) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

class Parser {
 public:
  Parser(const Diagnostics& diagnostics, const Environment& environment)
      : diagnostics_(diagnostics), environment_(environment), features_(environment.features) {}

  Node run() {
    tokens_ = tokenize(diagnostics_, features_);
    if (tokens_.size() == 1) diagnostics_.syntax_error(0, "empty expression");
    Node root = parse_expression();
    if (peek().kind != TokenKind::End)
      diagnostics_.syntax_error(peek().begin, "unexpected \"" + text(peek()) + "\"");
    return root;
  }

 private:
  const Token& peek() const { return tokens_[next_]; }
  const Token& peek_after() const { return tokens_[std::min(next_ + 1, tokens_.size() - 1)]; }
  const Token& take() { return tokens_[next_ < tokens_.size() - 1 ? next_++ : next_]; }
  bool peek_symbol(std::string_view symbol) const {
    return peek().kind == TokenKind::Symbol && peek().text == symbol;
  }
  std::string text(const Token& token) const { return token_text(diagnostics_.source(), token); }
  void expect(std::string_view symbol) {
    if (!peek_symbol(symbol))
      diagnostics_.syntax_error(
          peek().begin, "expected \"" + std::string(symbol) + "\", got \"" + text(peek()) + "\"");
  }

  void enter() {
    if (++depth_ > kMaxDepth)
      diagnostics_.syntax_error(peek().begin, "expression nested too deeply");
  }

  static Node make(Node::Kind kind, const Token& token) {
    Node node;
    node.kind = kind;
    node.name = token.text;
    node.begin = node.name_begin = token.begin;
    node.end = node.name_end = token.end;
    return node;
  }

  static Node binary(const Token& op, Node left, Node right) {
    Node node = make(Node::Kind::Binary, op);
    node.begin = left.begin;
    node.end = right.end;
    node.children.push_back(std::move(left));
    node.children.push_back(std::move(right));
    return node;
  }

  // A symbol in the place of an operand: a construct the environment switched off, or bad syntax.
  [[noreturn]] void reject_symbol(const Token& token) const {
    const std::pair<std::string_view, bool> kKnown[] = {
        {"+", !features_.arithmetic},     {"-", !features_.arithmetic},
        {"*", !features_.arithmetic},     {"/", !features_.arithmetic},
        {"%", !features_.arithmetic},     {"?", !features_.conditional},
        {":", !features_.conditional},    {"{", !features_.map_literals},
        {".", !features_.field_selection}};
    for (const auto& [symbol, switched_off] : kKnown) {
      if (switched_off && token.kind == TokenKind::Symbol && token.text == symbol)
        diagnostics_.unsupported(token.begin, token.end, construct_of(symbol));
    }
    diagnostics_.syntax_error(token.begin, "unexpected \"" + text(token) + "\"");
  }

  static std::string construct_of(std::string_view symbol) {
    if (symbol == "?" || symbol == ":") return "conditional operator ?:";
    if (symbol == "{") return "map and message literals";
    if (symbol == ".") return "field selection";
    return "arithmetic";
  }

  Node parse_expression() {
    enter();
    Node node = parse_or();
    if (peek_symbol("?")) {
      if (!features_.conditional) reject_symbol(peek());
      Node conditional = make(Node::Kind::Conditional, take());
      Node when_true = parse_or();
      expect(":");
      take();
      Node when_false = parse_expression();
      conditional.begin = node.begin;
      conditional.end = when_false.end;
      conditional.children = {std::move(node), std::move(when_true), std::move(when_false)};
      node = std::move(conditional);
    }
    --depth_;
    return node;
  }

  // Left-associative chains grow the tree one level per operator: each counts against the depth.
  template <typename Next, typename IsOperator>
  Node chain(Next next, IsOperator is_operator) {
    const int depth = depth_;
    Node left = (this->*next)();
    while (is_operator(peek())) {
      enter();
      const Token op = take();
      left = binary(op, std::move(left), (this->*next)());
    }
    depth_ = depth;
    return left;
  }

  Node parse_or() {
    return chain(&Parser::parse_and, [this](const Token&) { return peek_symbol("||"); });
  }
  Node parse_and() {
    return chain(&Parser::parse_relation, [this](const Token&) { return peek_symbol("&&"); });
  }
  Node parse_relation() {
    return chain(&Parser::parse_sum, [](const Token& token) {
      static constexpr std::string_view kRelations[] = {"==", "!=", "<", "<=", ">", ">="};
      return (token.kind == TokenKind::Symbol && one_of(token.text, kRelations)) ||
             (token.kind == TokenKind::Identifier && token.text == "in");
    });
  }
  Node parse_sum() {
    return chain(&Parser::parse_product, [this](const Token& t) { return arithmetic(t, "+-"); });
  }
  Node parse_product() {
    return chain(&Parser::parse_unary, [this](const Token& t) { return arithmetic(t, "*/%"); });
  }

  bool arithmetic(const Token& token, std::string_view symbols) const {
    if (token.kind != TokenKind::Symbol || token.text.size() != 1 ||
        symbols.find(token.text[0]) == std::string_view::npos) {
      return false;
    }
    if (!features_.arithmetic) reject_symbol(token);
    return true;
  }

  Node parse_unary() {
    if (peek_symbol("-") &&
        (peek_after().kind == TokenKind::Int || peek_after().kind == TokenKind::Double)) {
      const Token minus = take();
      Node literal = parse_literal(take(), true);
      literal.begin = minus.begin;
      return parse_member(std::move(literal));
    }
    if (!peek_symbol("!") && !peek_symbol("-")) return parse_member(parse_primary());
    enter();
    Node node = make(Node::Kind::Unary, take());
    Node operand = parse_unary();
    node.end = operand.end;
    node.children.push_back(std::move(operand));
    --depth_;
    return node;
  }

  Node parse_literal(const Token& token, bool negative) {
    Node node = make(Node::Kind::Literal, token);
    constexpr auto kMaxInt = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    switch (token.kind) {
      case TokenKind::Int:
        if (token.magnitude > kMaxInt + (negative ? 1 : 0))
          diagnostics_.syntax_error(token.begin, "integer literal out of range");
        node.literal = Value::integer(negative ? static_cast<std::int64_t>(0 - token.magnitude)
                                               : static_cast<std::int64_t>(token.magnitude));
        break;
      case TokenKind::Uint:
        node.literal = Value::unsigned_integer(token.magnitude);
        break;
      case TokenKind::Double:
        node.literal = Value::floating(negative ? -token.floating : token.floating);
        break;
      default:
        node.literal = Value::string(token.text);
        break;
    }
    return node;
  }

  Node parse_member(Node node) {
    while (true) {
      if (peek_symbol("[")) {
        if (!features_.indexing) diagnostics_.unsupported(peek().begin, peek().end, "indexing");
        Node index = make(Node::Kind::Index, take());
        if (peek_symbol("?"))
          diagnostics_.unsupported(index.begin, peek().end, "optional indexing");
        index.children.push_back(std::move(node));
        index.children.push_back(parse_expression());
        expect("]");
        index.begin = index.children[0].begin;
        index.end = take().end;
        node = std::move(index);
        continue;
      }
      if (!peek_symbol(".")) return node;
      const Token dot = take();
      if (peek_symbol("?"))
        diagnostics_.unsupported(dot.begin, peek().end, "optional field selection");
      const Token name = take();
      if (name.kind != TokenKind::Identifier)
        diagnostics_.syntax_error(name.begin, "expected a name after \".\"");
      if (peek_symbol("(")) {
        node = method_call(std::move(node), name);
        continue;
      }
      if (!features_.field_selection)
        diagnostics_.unsupported(dot.begin, name.end, "field selection");
      Node select = make(Node::Kind::Select, name);
      select.begin = node.begin;
      select.children.push_back(std::move(node));
      node = std::move(select);
    }
  }

  Node method_call(Node receiver, const Token& name) {
    if (features_.functions && one_of(name.text, kMacros)) return macro(std::move(receiver), name);
    Node call = make(Node::Kind::Call, name);
    call.receiver_call = true;
    call.begin = receiver.begin;
    call.children.push_back(std::move(receiver));
    const bool known = name.text == "startsWith" || name.text == "endsWith" ||
                       name.text == "contains" ||
                       (features_.functions && one_of(name.text, kReceiverFunctions));
    if (!known) {
      diagnostics_.unsupported(name.begin, name.end,
                               one_of(name.text, kMacros) ? "macros" : "unknown function");
    }
    call.end = parse_arguments(call.children);
    return call;
  }

  // range.all(x, p), exists, exists_one, filter, map(x, t), map(x, p, t): the expressions see
  // the variable x, bound to each list element or map key in turn.
  Node macro(Node range, const Token& name) {
    Node node = make(Node::Kind::Comprehension, name);
    node.begin = range.begin;
    node.children.push_back(std::move(range));
    take();  // "("
    const Token variable = take();
    if (variable.kind != TokenKind::Identifier || one_of(variable.text, kReserved)) {
      diagnostics_.syntax_error(
          variable.begin,
          name.text + "() takes a variable name first, such as " + name.text + "(c, <expression>)");
    }
    node.variable = variable.text;
    expect(",");
    take();
    scopes_.push_back(variable.text);
    node.children.push_back(parse_expression());
    if (name.text == "map" && peek_symbol(",")) {
      take();
      node.children.push_back(parse_expression());
    }
    scopes_.pop_back();
    if (!peek_symbol(")")) {
      diagnostics_.syntax_error(
          peek().begin, name.text + "() takes a variable and " +
                            (name.text == "map" ? "one or two expressions" : "one expression") +
                            ", got \"" + text(peek()) + "\"");
    }
    node.end = take().end;
    return node;
  }

  // Parses "(a, b, ...)" into `into`; returns the end of ")".
  std::size_t parse_arguments(std::vector<Node>& into) {
    take();  // "("
    if (!peek_symbol(")")) {
      into.push_back(parse_expression());
      while (peek_symbol(",")) {
        take();
        into.push_back(parse_expression());
      }
    }
    expect(")");
    return take().end;
  }

  Node parse_primary() {
    const Token token = take();
    switch (token.kind) {
      case TokenKind::End:
        diagnostics_.syntax_error(token.begin, "unexpected end of expression");
      case TokenKind::Identifier:
        return identifier(token);
      case TokenKind::Symbol:
        break;
      default:
        return parse_literal(token, false);
    }
    if (token.text == "(") {
      Node inner = parse_expression();
      expect(")");
      inner.begin = token.begin;
      inner.end = take().end;
      return inner;
    }
    if (token.text == "[") return list_literal(token);
    if (token.text == "{" && features_.map_literals) return map_literal(token);
    reject_symbol(token);
  }

  Node identifier(const Token& token) {
    if (peek_symbol("(")) return global_call(token);
    Node node = make(Node::Kind::Literal, token);
    if (token.text == "true" || token.text == "false") {
      node.literal = Value::boolean(token.text == "true");
    } else if (token.text == "null") {
      if (!features_.null_literal) diagnostics_.unsupported(token.begin, token.end, "null");
    } else if (token.text == "in") {
      diagnostics_.syntax_error(token.begin, "unexpected \"in\"");
    } else if (std::find(scopes_.begin(), scopes_.end(), token.text) != scopes_.end()) {
      node.kind = Node::Kind::Ident;  // a macro's iteration variable
    } else {
      const auto& variables = environment_.variables;
      if (std::none_of(variables.begin(), variables.end(),
                       [&](const Variable& v) { return v.name == token.text; }))
        diagnostics_.unsupported(token.begin, token.end, "unknown identifier");
      node.kind = Node::Kind::Ident;
    }
    return node;
  }

  Node global_call(const Token& name) {
    if (!features_.functions)
      diagnostics_.unsupported(name.begin, name.end, "global function call");
    if (!one_of(name.text, kGlobalFunctions))
      diagnostics_.unsupported(name.begin, name.end, "unknown function");
    Node call = make(Node::Kind::Call, name);
    call.end = parse_arguments(call.children);
    if (call.name != "has") return call;
    if (call.children.size() != 1 || call.children[0].kind != Node::Kind::Select)
      diagnostics_.syntax_error(name.begin,
                                "has() takes one field selection, such as has(node.spec.taints)");
    Node select = std::move(call.children[0]);
    select.test_only = true;
    select.begin = call.begin;
    select.end = call.end;
    return select;
  }

  Node list_literal(const Token& open) {
    Node list = make(Node::Kind::List, open);
    while (!peek_symbol("]")) {
      list.children.push_back(parse_expression());
      if (peek_symbol(",")) {
        take();
      } else if (!peek_symbol("]")) {
        diagnostics_.syntax_error(peek().begin,
                                  "expected \",\" or \"]\", got \"" + text(peek()) + "\"");
      }
    }
    list.end = take().end;
    return list;
  }

  Node map_literal(const Token& open) {
    Node map = make(Node::Kind::Map, open);
    while (!peek_symbol("}")) {
      map.children.push_back(parse_expression());
      expect(":");
      take();
      map.children.push_back(parse_expression());
      if (peek_symbol(",")) {
        take();
      } else if (!peek_symbol("}")) {
        diagnostics_.syntax_error(peek().begin,
                                  "expected \",\" or \"}\", got \"" + text(peek()) + "\"");
      }
    }
    map.end = take().end;
    return map;
  }

  const Diagnostics& diagnostics_;
  const Environment& environment_;
  const Features& features_;
  std::vector<Token> tokens_;
  std::vector<std::string> scopes_;  // iteration variables of the enclosing macros
  std::size_t next_ = 0;
  int depth_ = 0;
};

}  // namespace

Node parse(const Diagnostics& diagnostics, const Environment& environment) {
  return Parser(diagnostics, environment).run();
}

}  // namespace nvcre::cel::detail
