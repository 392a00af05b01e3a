#include "k8s/label_selector.hpp"

#include "k8s/label_validation.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>

namespace nvcre::k8s {
namespace {

using Op = Requirement::Operator;

// strconv.ParseInt(s, 10, 64): optional sign, at least one digit, in range.
std::optional<std::int64_t> parse_int64(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  const std::uint64_t limit = std::uint64_t(std::numeric_limits<std::int64_t>::max()) + negative;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = std::uint64_t(c - '0');
    if (v > (limit - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return negative ? static_cast<std::int64_t>(~v + 1) : static_cast<std::int64_t>(v);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Go's %#v of a []string, as field.Invalid prints it.
std::string go_string_slice(const std::vector<std::string>& values) {
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += quoted(values[i]);
  }
  return out + "}";
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

// labels.NewRequirement's checks; the field errors joined by "; ", or "" when valid.
std::string requirement_error(const std::string& key, Op op,
                              const std::vector<std::string>& values) {
  std::vector<std::string> errs;
  if (auto e = qualified_name_errors(key); !e.empty()) {
    errs.push_back("key: Invalid value: " + quoted(key) + ": " + join(e, "; "));
  }
  const std::string invalid_values = "values: Invalid value: " + go_string_slice(values) + ": ";
  switch (op) {
    case Op::In:
    case Op::NotIn:
      if (values.empty()) {
        errs.push_back(invalid_values + "for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case Op::Equals:
    case Op::NotEquals:
      if (values.size() != 1) {
        errs.push_back(invalid_values + "exact-match compatibility requires one single value");
      }
      break;
    case Op::Exists:
    case Op::DoesNotExist:
      if (!values.empty()) {
        errs.push_back(invalid_values + "values set must be empty for exists and does not exist");
      }
      break;
    case Op::GreaterThan:
    case Op::LessThan:
      if (values.size() != 1) {
        errs.push_back(invalid_values + "for 'Gt', 'Lt' operators, exactly one value is required");
      }
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!parse_int64(values[i])) {
          errs.push_back("values[" + std::to_string(i) + "]: Invalid value: " + quoted(values[i]) +
                         ": for 'Gt', 'Lt' operators, the value must be an integer");
        }
      }
      break;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (auto e = label_value_errors(values[i]); !e.empty()) {
      errs.push_back("values[" + std::to_string(i) + "][" + key +
                     "]: Invalid value: " + quoted(values[i]) + ": " + join(e, "; "));
    }
  }
  return join(errs, "; ");
}

Requirement normalized(std::string key, Op op, std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return Requirement{std::move(key), op, std::move(values)};
}

std::vector<Requirement> sorted_by_key(std::vector<Requirement> requirements) {
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return requirements;
}

// --- string grammar -------------------------------------------------------------------------

enum class Tok {
  Identifier,
  In,
  NotIn,
  Equals,
  DoubleEquals,
  NotEquals,
  Bang,
  Gt,
  Lt,
  Open,
  Close,
  Comma,
  End
};

struct Token {
  Tok kind;
  std::string_view text;
  std::size_t pos;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_special(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    const std::size_t start = i;
    if (is_special(s[i])) {
      // Longest match: only "==" and "!=" are two characters long.
      if (i + 1 < s.size() && s[i + 1] == '=' && (s[i] == '=' || s[i] == '!')) {
        tokens.push_back({s[i] == '=' ? Tok::DoubleEquals : Tok::NotEquals, s.substr(i, 2), i});
        i += 2;
        continue;
      }
      static constexpr std::pair<char, Tok> kSingle[] = {
          {'=', Tok::Equals}, {'!', Tok::Bang}, {'(', Tok::Open}, {')', Tok::Close},
          {',', Tok::Comma},  {'>', Tok::Gt},   {'<', Tok::Lt}};
      for (const auto& [c, kind] : kSingle) {
        if (c == s[i]) tokens.push_back({kind, s.substr(i, 1), i});
      }
      ++i;
      continue;
    }
    while (i < s.size() && !is_space(s[i]) && !is_special(s[i])) ++i;
    const std::string_view word = s.substr(start, i - start);
    const Tok kind = word == "in" ? Tok::In : word == "notin" ? Tok::NotIn : Tok::Identifier;
    tokens.push_back({kind, word, start});
  }
  tokens.push_back({Tok::End, {}, s.size()});
  return tokens;
}

class Parser {
 public:
  explicit Parser(std::string_view input) : input_(input), tokens_(lex(input)) {}

  std::vector<Requirement> parse() {
    std::vector<Requirement> requirements;
    while (true) {
      const Token t = peek();
      if (t.kind == Tok::End) return requirements;
      if (t.kind != Tok::Identifier && t.kind != Tok::Bang) {
        fail(t, "!, identifier, or 'end of string'");
      }
      requirements.push_back(parse_requirement());
      const Token next = take();
      if (next.kind == Tok::End) return requirements;
      if (next.kind != Tok::Comma) fail(next, "',' or 'end of string'");
      const Token after = peek();
      if (after.kind != Tok::Identifier && after.kind != Tok::Bang) {
        fail(after, "identifier after ','");
      }
    }
  }

 private:
  // In value positions the keywords "in"/"notin" are plain identifiers (`in=notin` is valid).
  Token peek(bool values = true) const { return as_context(tokens_[next_], values); }
  Token take(bool values = true) {
    const Token t = as_context(tokens_[next_], values);
    if (t.kind != Tok::End) ++next_;
    return t;
  }
  static Token as_context(Token t, bool values) {
    if (values && (t.kind == Tok::In || t.kind == Tok::NotIn)) t.kind = Tok::Identifier;
    return t;
  }

  [[noreturn]] void fail_at(std::size_t pos, const std::string& problem) const {
    throw std::invalid_argument("invalid label selector " + quoted(input_) + " at position " +
                                std::to_string(pos) + ": " + problem);
  }
  [[noreturn]] void fail(const Token& t, std::string_view expected) const {
    const std::string found =
        t.kind == Tok::End ? "end of string" : "'" + std::string(t.text) + "'";
    fail_at(t.pos, "found " + found + ", expected: " + std::string(expected));
  }

  Requirement parse_requirement() {
    Token t = take();
    const bool not_exists = t.kind == Tok::Bang;
    if (not_exists) t = take();
    if (t.kind != Tok::Identifier) fail(t, "identifier");
    const std::string key(t.text);
    // The key is checked before the operator, as Go does, so the error points at it.
    if (auto e = qualified_name_errors(key); !e.empty()) {
      fail_at(t.pos, "key: Invalid value: " + quoted(key) + ": " + join(e, "; "));
    }
    const Token after_key = peek();
    Op op = not_exists ? Op::DoesNotExist : Op::Exists;
    std::vector<std::string> values;
    // `!k` takes no operator; whatever follows it is reported by parse() as misplaced.
    if (!not_exists && after_key.kind != Tok::End && after_key.kind != Tok::Comma) {
      const Token o = take(false);
      switch (o.kind) {
        case Tok::In:
          op = Op::In;
          break;
        case Tok::NotIn:
          op = Op::NotIn;
          break;
        case Tok::Equals:
        case Tok::DoubleEquals:
          op = Op::Equals;
          break;
        case Tok::NotEquals:
          op = Op::NotEquals;
          break;
        case Tok::Gt:
          op = Op::GreaterThan;
          break;
        case Tok::Lt:
          op = Op::LessThan;
          break;
        default:
          fail(o, "in, notin, =, ==, !=, gt, lt");
      }
      values = (op == Op::In || op == Op::NotIn) ? parse_set() : parse_exact_value();
    }
    if (const auto error = requirement_error(key, op, values); !error.empty()) {
      fail_at(t.pos, error);
    }
    return normalized(key, op, std::move(values));
  }

  // "(a,b)"; empty members as Go reads them: "()" and "(,)" mean {""}.
  std::vector<std::string> parse_set() {
    const Token open = take();
    if (open.kind != Tok::Open) fail(open, "'('");
    const Token first = peek();
    if (first.kind == Tok::Close) {
      take();
      return {""};
    }
    if (first.kind != Tok::Identifier && first.kind != Tok::Comma) {
      fail(first, "',', ')' or identifier");
    }
    std::vector<std::string> values;
    while (true) {
      const Token t = take();
      if (t.kind == Tok::Identifier) {
        values.emplace_back(t.text);
        const Token n = peek();
        if (n.kind == Tok::Close) break;
        if (n.kind != Tok::Comma) fail(n, "',' or ')'");
      } else if (t.kind == Tok::Comma) {
        if (values.empty()) values.emplace_back();  // "(,"
        const Token n = peek();
        if (n.kind == Tok::Close) {
          values.emplace_back();  // ",)"
          break;
        }
        if (n.kind == Tok::Comma) {
          take();
          values.emplace_back();  // ",,"
        }
      } else {
        fail(t, "',', or identifier");
      }
    }
    take();  // ')'
    return values;
  }

  std::vector<std::string> parse_exact_value() {
    const Token t = peek();
    if (t.kind == Tok::End || t.kind == Tok::Comma) return {""};  // "k=" means the empty value
    take();
    if (t.kind != Tok::Identifier) fail(t, "identifier");
    return {std::string(t.text)};
  }

  std::string_view input_;
  std::vector<Token> tokens_;
  std::size_t next_ = 0;
};

// --- JSON ---------------------------------------------------------------------------------

[[noreturn]] void bad_shape(const std::string& what) { throw std::invalid_argument(what); }

const boost::json::object* object_or_null(const boost::json::value& v, const std::string& what) {
  if (v.is_null()) return nullptr;
  if (!v.is_object()) bad_shape(what + " must be an object");
  return &v.as_object();
}

std::string string_field(const boost::json::object& obj, std::string_view name,
                         const std::string& where) {
  const auto* v = obj.if_contains(name);
  if (v == nullptr || !v->is_string())
    bad_shape(where + "." + std::string(name) + " must be a string");
  return std::string(v->as_string());
}

std::vector<std::string> string_list(const boost::json::object& obj, const std::string& where) {
  std::vector<std::string> out;
  const auto* v = obj.if_contains("values");
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array()) bad_shape(where + ".values must be an array of strings");
  for (const auto& item : v->as_array()) {
    if (!item.is_string()) bad_shape(where + ".values must be an array of strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

struct NamedOp {
  std::string_view name;
  Op op;
};
using Operators = std::span<const NamedOp>;
constexpr NamedOp kSelectorOperators[] = {{"In", Op::In},
                                          {"NotIn", Op::NotIn},
                                          {"Exists", Op::Exists},
                                          {"DoesNotExist", Op::DoesNotExist}};
constexpr NamedOp kNodeSelectorOperators[] = {
    {"In", Op::In},          {"NotIn", Op::NotIn},
    {"Exists", Op::Exists},  {"DoesNotExist", Op::DoesNotExist},
    {"Gt", Op::GreaterThan}, {"Lt", Op::LessThan}};

Requirement expression_from_json(const boost::json::value& json, const std::string& where,
                                 Operators operators) {
  const auto* obj = object_or_null(json, where);
  if (obj == nullptr) bad_shape(where + " must be an object");
  std::string key = string_field(*obj, "key", where);
  const std::string op_name = string_field(*obj, "operator", where);
  const auto it = std::find_if(operators.begin(), operators.end(),
                               [&](const NamedOp& n) { return n.name == op_name; });
  if (it == operators.end()) {
    bad_shape(where + ": " + quoted(op_name) + " is not a valid label selector operator");
  }
  std::vector<std::string> values = string_list(*obj, where);
  try {
    return make_requirement(std::move(key), it->op, std::move(values));
  } catch (const std::invalid_argument& e) {
    bad_shape(where + ": " + e.what());
  }
}

}  // namespace

Requirement make_requirement(std::string key, Op op, std::vector<std::string> values) {
  if (const auto error = requirement_error(key, op, values); !error.empty()) {
    throw std::invalid_argument(error);
  }
  return normalized(std::move(key), op, std::move(values));
}

bool Requirement::matches(const Labels& labels) const {
  const auto it = labels.find(key);
  return matches_value(it == labels.end() ? std::nullopt
                                          : std::optional<std::string_view>(it->second));
}

bool Requirement::matches_value(std::optional<std::string_view> value) const {
  const bool has = value.has_value();
  const auto has_value = [&] {
    return has && std::find(values.begin(), values.end(), *value) != values.end();
  };
  switch (op) {
    case Op::Equals:
    case Op::In:
      return has_value();
    case Op::NotEquals:
    case Op::NotIn:
      return !has_value();
    case Op::Exists:
      return has;
    case Op::DoesNotExist:
      return !has;
    case Op::GreaterThan:
    case Op::LessThan: {
      if (!has || values.size() != 1) return false;
      const auto label = parse_int64(*value);
      const auto bound = parse_int64(values.front());
      if (!label || !bound) return false;
      return op == Op::GreaterThan ? *label > *bound : *label < *bound;
    }
  }
  return false;
}

std::string Requirement::to_string() const {
  std::string out = op == Op::DoesNotExist ? "!" + key : key;
  switch (op) {
    case Op::Exists:
    case Op::DoesNotExist:
      return out;
    case Op::Equals:
      out += "=";
      break;
    case Op::NotEquals:
      out += "!=";
      break;
    case Op::In:
      out += " in (";
      break;
    case Op::NotIn:
      out += " notin (";
      break;
    case Op::GreaterThan:
      out += ">";
      break;
    case Op::LessThan:
      out += "<";
      break;
  }
  std::vector<std::string> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  out += join(sorted, ",");
  if (op == Op::In || op == Op::NotIn) out += ")";
  return out;
}

Requirement node_selector_requirement_from_json(const boost::json::value& json) {
  return expression_from_json(json, "nodeSelectorRequirement", kNodeSelectorOperators);
}

LabelSelector::LabelSelector(std::vector<Requirement> requirements)
    : requirements_(sorted_by_key(std::move(requirements))) {}

LabelSelector LabelSelector::parse(std::string_view text) {
  return LabelSelector(Parser(text).parse());
}

LabelSelector LabelSelector::from_json(const boost::json::value& json) {
  const auto* obj = object_or_null(json, "label selector");
  if (obj == nullptr) return {};
  std::vector<Requirement> requirements;
  if (const auto* labels = obj->if_contains("matchLabels"); labels && !labels->is_null()) {
    if (!labels->is_object()) bad_shape("matchLabels must be an object of strings");
    for (const auto& [key, value] : labels->as_object()) {
      if (!value.is_string()) bad_shape("matchLabels must be an object of strings");
      try {
        requirements.push_back(make_requirement(key, Op::Equals, {std::string(value.as_string())}));
      } catch (const std::invalid_argument& e) {
        bad_shape("matchLabels: " + std::string(e.what()));
      }
    }
  }
  if (const auto* exprs = obj->if_contains("matchExpressions"); exprs && !exprs->is_null()) {
    if (!exprs->is_array()) bad_shape("matchExpressions must be an array");
    std::size_t i = 0;
    for (const auto& expr : exprs->as_array()) {
      requirements.push_back(expression_from_json(
          expr, "matchExpressions[" + std::to_string(i++) + "]", kSelectorOperators));
    }
  }
  return LabelSelector(std::move(requirements));
}

LabelSelector LabelSelector::from_match_labels(const Labels& match_labels) {
  std::vector<Requirement> requirements;
  for (const auto& [key, value] : match_labels) {
    requirements.push_back(make_requirement(key, Op::Equals, {value}));
  }
  return LabelSelector(std::move(requirements));
}

LabelSelector LabelSelector::from_node_selector_requirements(const boost::json::value& json) {
  if (json.is_null()) return {};
  if (!json.is_array()) bad_shape("node selector requirements must be an array");
  std::vector<Requirement> requirements;
  std::size_t i = 0;
  for (const auto& item : json.as_array()) {
    requirements.push_back(
        expression_from_json(item, "[" + std::to_string(i++) + "]", kNodeSelectorOperators));
  }
  return LabelSelector(std::move(requirements));
}

LabelSelector LabelSelector::from_requirements(std::vector<Requirement> requirements) {
  for (auto& r : requirements) r = make_requirement(std::move(r.key), r.op, std::move(r.values));
  return LabelSelector(std::move(requirements));
}

bool LabelSelector::matches(const Labels& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.matches(labels); });
}

bool LabelSelector::matches_lookup(
    const std::function<std::optional<std::string_view>(std::string_view)>& label) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.matches_value(label(r.key)); });
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ",";
    out += r.to_string();
  }
  return out;
}

}  // namespace nvcre::k8s
