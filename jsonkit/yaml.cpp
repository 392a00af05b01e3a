#include "jsonkit/yaml.hpp"
#include "jsonkit/utf8.hpp"

#include <boost/json.hpp>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace nvcre::jsonkit {
namespace json = boost::json;

namespace {

std::string where(const YAML::Mark& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1);
}

bool is_one_of(std::string_view text, std::initializer_list<std::string_view> options) {
  for (auto option : options) {
    if (text == option) return true;
  }
  return false;
}

// Plain-scalar resolution as Kubernetes' YAML reader (go-yaml v2) does it, so that a manifest
// means the same thing to us as to kubectl: YAML 1.1 booleans (yes/no/on/off) included.
std::optional<json::value> resolve_plain_scalar(std::string_view text) {
  if (text.empty() || is_one_of(text, {"~", "null", "Null", "NULL"})) return json::value(nullptr);
  if (is_one_of(text, {"true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON"})) {
    return json::value(true);
  }
  if (is_one_of(text,
                {"false", "False", "FALSE", "n", "N", "no", "No", "NO", "off", "Off", "OFF"})) {
    return json::value(false);
  }
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  auto all_of = [](std::string_view s, auto pred) {
    if (s.empty()) return false;
    for (char c : s) {
      if (!pred(static_cast<unsigned char>(c))) return false;
    }
    return true;
  };
  auto parse_integer = [&](std::string_view body, int base) -> std::optional<json::value> {
    std::uint64_t magnitude = 0;
    auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), magnitude, base);
    if (ec != std::errc() || end != body.data() + body.size()) return std::nullopt;
    if (negative) {
      if (magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + 1) {
        return std::nullopt;
      }
      return json::value(static_cast<std::int64_t>(0 - magnitude));
    }
    if (magnitude <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return json::value(static_cast<std::int64_t>(magnitude));
    }
    return json::value(magnitude);
  };
  if (all_of(digits, [](unsigned char c) { return std::isdigit(c) != 0; })) {
    if (auto value = parse_integer(digits, 10)) return value;
  }
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') &&
      all_of(digits.substr(2), [](unsigned char c) { return std::isxdigit(c) != 0; })) {
    if (auto value = parse_integer(digits.substr(2), 16)) return value;
  }
  if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'o' &&
      all_of(digits.substr(2), [](unsigned char c) { return c >= '0' && c <= '7'; })) {
    if (auto value = parse_integer(digits.substr(2), 8)) return value;
  }
  if (is_one_of(digits, {".inf", ".Inf", ".INF"})) {
    return json::value(negative ? -std::numeric_limits<double>::infinity()
                                : std::numeric_limits<double>::infinity());
  }
  if (is_one_of(text, {".nan", ".NaN", ".NAN"})) return json::value(std::nan(""));
  // [0-9]*(.[0-9]*)?([eE][-+]?[0-9]+)? with at least one digit in the mantissa
  {
    std::size_t i = 0, mantissa_digits = 0;
    while (i < digits.size() && std::isdigit(static_cast<unsigned char>(digits[i])))
      ++i, ++mantissa_digits;
    if (i < digits.size() && digits[i] == '.') {
      ++i;
      while (i < digits.size() && std::isdigit(static_cast<unsigned char>(digits[i])))
        ++i, ++mantissa_digits;
    }
    bool valid = mantissa_digits > 0;
    if (valid && i < digits.size() && (digits[i] == 'e' || digits[i] == 'E')) {
      ++i;
      if (i < digits.size() && (digits[i] == '+' || digits[i] == '-')) ++i;
      std::size_t exponent_digits = 0;
      while (i < digits.size() && std::isdigit(static_cast<unsigned char>(digits[i])))
        ++i, ++exponent_digits;
      valid = exponent_digits > 0;
    }
    if (valid && i == digits.size()) {
      double value = 0;
      std::string copy(text.front() == '+' ? text.substr(1) : text);
      auto [end, ec] = std::from_chars(copy.data(), copy.data() + copy.size(), value);
      if (ec == std::errc() && end == copy.data() + copy.size()) return json::value(value);
    }
  }
  return std::nullopt;
}

// Aliases let a few bytes stand for a huge tree ("billion laughs"), and an alias inside its own
// anchor for an endless one. Every value we build is charged 16 bytes plus its text; a document
// without aliases costs at most 32 times its size, so this budget stops only alias expansion.
struct ExpansionBudget {
  std::size_t left;
  std::size_t limit;
  void charge(std::size_t bytes, const YAML::Mark& mark) {
    if (bytes > left) {
      throw ParseError("YAML aliases at " + where(mark) + " expand to more than " +
                       std::to_string(limit) +
                       " bytes of values; write the repeated values out instead of aliasing "
                       "them so often");
    }
    left -= bytes;
  }
};

std::size_t expansion_limit(std::size_t text_bytes) { return 32 * text_bytes + (1u << 20); }

json::value to_json(const YAML::Node& node, int depth, ExpansionBudget& budget);

json::value scalar_to_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  // yaml-cpp tags quoted and block scalars "!", plain ones "?"; explicit tags are honoured for the
  // common core types.
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str") return json::value(text);
  if (tag == "?") {
    if (auto resolved = resolve_plain_scalar(text)) return *resolved;
    return json::value(text);
  }
  if (auto resolved = resolve_plain_scalar(text)) {
    if ((tag == "tag:yaml.org,2002:int" && resolved->is_number()) ||
        (tag == "tag:yaml.org,2002:float" && resolved->is_number()) ||
        (tag == "tag:yaml.org,2002:bool" && resolved->is_bool()) ||
        (tag == "tag:yaml.org,2002:null" && resolved->is_null())) {
      return *resolved;
    }
  }
  throw ParseError("unsupported YAML tag " + tag + " at " + where(node.Mark()));
}

json::value to_json(const YAML::Node& node, int depth, ExpansionBudget& budget) {
  if (depth > 200) throw ParseError("YAML nesting deeper than 200 levels at " + where(node.Mark()));
  budget.charge(16 + (node.IsScalar() ? node.Scalar().size() : 0), node.Mark());
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return json::value(nullptr);
    case YAML::NodeType::Scalar:
      return scalar_to_json(node);
    case YAML::NodeType::Sequence: {
      json::array array;
      array.reserve(node.size());
      for (const auto& item : node) array.push_back(to_json(item, depth + 1, budget));
      return array;
    }
    case YAML::NodeType::Map: {
      json::object object;
      for (const auto& entry : node) {
        const YAML::Node& key = entry.first;
        if (!key.IsScalar()) {
          throw ParseError("mapping key at " + where(key.Mark()) + " is not a scalar");
        }
        // Kubernetes' reader turns every key into a JSON string.
        const std::string& name = key.Scalar();
        budget.charge(name.size(), key.Mark());
        if (object.contains(name)) {
          throw ParseError("duplicate key \"" + name + "\" at " + where(key.Mark()));
        }
        object.emplace(name, to_json(entry.second, depth + 1, budget));
      }
      return object;
    }
  }
  return json::value(nullptr);
}

// Would `text` read back as something other than this string if written as a plain scalar?
bool needs_quotes(const std::string& text) {
  if (text.empty() || resolve_plain_scalar(text).has_value()) return true;
  if (std::isspace(static_cast<unsigned char>(text.front())) ||
      std::isspace(static_cast<unsigned char>(text.back()))) {
    return true;
  }
  static const std::string_view leading_indicators = "-?:,[]{}#&*!|>'\"%@`";
  if (leading_indicators.find(text.front()) != std::string_view::npos) return true;
  if (text.find(": ") != std::string::npos || text.find(" #") != std::string::npos ||
      text.back() == ':') {
    return true;
  }
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

std::string format_double(double value) {
  if (std::isnan(value)) return ".nan";
  if (std::isinf(value)) return value < 0 ? "-.inf" : ".inf";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, end);
  // Keep a double recognisable as one, so a round trip does not turn 1.0 into the integer 1.
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

void emit(YAML::Emitter& out, const json::value& value);

// Does a literal block scalar ("|") read back as exactly `text`? yaml-cpp writes it with clip
// chomping and no indentation indicator, so the text must end in exactly one line break, its first
// line must not start with a blank (it would be taken as indentation), and it must hold no control
// character a reader would treat as a line break or refuse.
bool literal_keeps(const std::string& text) {
  if (!text.ends_with('\n') || text.ends_with("\n\n")) return false;
  const auto first = text.find_first_not_of('\n');
  if (first == std::string::npos || text[first] == ' ' || text[first] == '\t') return false;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) return false;
  }
  return true;
}

// Keys are never block scalars: a multi-line key is written double-quoted, escapes and all.
void emit_string(YAML::Emitter& out, const std::string& text, bool key = false) {
  if (!key && literal_keeps(text)) {
    out << YAML::Literal << text;
  } else if (needs_quotes(text)) {
    out << YAML::DoubleQuoted << text;
  } else {
    out << text;
  }
}

void emit(YAML::Emitter& out, const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      out << YAML::Null;
      break;
    case json::kind::bool_:
      out << (value.get_bool() ? "true" : "false");
      break;
    case json::kind::int64:
      out << value.get_int64();
      break;
    case json::kind::uint64:
      out << value.get_uint64();
      break;
    case json::kind::double_:
      out << format_double(value.get_double());
      break;
    case json::kind::string:
      emit_string(out, std::string(value.get_string()));
      break;
    case json::kind::array:
      if (value.get_array().empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      out << YAML::BeginSeq;
      for (const auto& item : value.get_array()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case json::kind::object:
      if (value.get_object().empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        break;
      }
      out << YAML::BeginMap;
      for (const auto& entry : value.get_object()) {
        out << YAML::Key;
        emit_string(out, std::string(entry.key()), true);
        out << YAML::Value;
        emit(out, entry.value());
      }
      out << YAML::EndMap;
      break;
  }
}

void write_pretty(std::ostringstream& out, const json::value& value, int indent) {
  const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
  const std::string inner(static_cast<std::size_t>(indent + 1) * 2, ' ');
  switch (value.kind()) {
    case json::kind::object: {
      const auto& object = value.get_object();
      if (object.empty()) {
        out << "{}";
        return;
      }
      out << "{\n";
      bool first = true;
      for (const auto& entry : object) {
        if (!first) out << ",\n";
        first = false;
        out << inner << json::serialize(json::value(entry.key())) << ": ";
        write_pretty(out, entry.value(), indent + 1);
      }
      out << '\n' << pad << '}';
      return;
    }
    case json::kind::array: {
      const auto& array = value.get_array();
      if (array.empty()) {
        out << "[]";
        return;
      }
      out << "[\n";
      for (std::size_t i = 0; i < array.size(); ++i) {
        if (i) out << ",\n";
        out << inner;
        write_pretty(out, array[i], indent + 1);
      }
      out << '\n' << pad << ']';
      return;
    }
    case json::kind::double_: {
      const double d = value.get_double();
      out << (std::isfinite(d) ? format_double(d) : std::string("null"));
      return;
    }
    default:
      out << json::serialize(value);
  }
}

// YAML and JSON text is UTF-8 (a UTF-16 or UTF-32 stream starts with its byte order mark, which
// yaml-cpp decodes); a stray byte would otherwise reach the API server inside a string.
void check_utf8(std::string_view text) {
  if (text.starts_with("\xFE\xFF") || text.starts_with("\xFF\xFE") ||
      text.starts_with(std::string_view("\0\0\xFE\xFF", 4))) {
    return;
  }
  const auto bad = first_invalid_utf8(text);
  if (!bad) return;
  const auto before = text.substr(0, *bad);
  const auto line_start = before.rfind('\n');
  const std::size_t line =
      1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t column = *bad - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[*bad]));
  throw ParseError("invalid UTF-8 at line " + std::to_string(line) + ", column " +
                   std::to_string(column) + " (byte " + byte +
                   "): YAML and JSON input must be UTF-8; re-encode the file as UTF-8");
}

// yaml-cpp 0.7's LoadAll loops forever on some malformed streams (a stray ',' or '}' where a
// node should start): its parser reports an empty document without consuming the token, again and
// again. A first pass over the parser's events stops at a document that starts where the previous
// one did, before LoadAll sees the text.
class ProgressCheck : public YAML::EventHandler {
 public:
  explicit ProgressCheck(std::string_view text) : text_(text) {}
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (last_pos_ && *last_pos_ == mark.pos) {
      const auto at = static_cast<std::size_t>(mark.pos);
      const bool shown = at < text_.size() && std::isprint(static_cast<unsigned char>(text_[at]));
      const std::string found = shown ? "'" + std::string(1, text_[at]) + "'" : "text";
      throw ParseError("invalid YAML at " + where(mark) + ": unexpected " + found +
                       " where a value should start; quote the value if it is meant as text");
    }
    last_pos_ = mark.pos;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  std::string_view text_;
  std::optional<int> last_pos_;
};

void check_progress(const std::string& text) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  ProgressCheck check(text);
  while (parser.HandleNextDocument(check)) {
  }
}

}  // namespace

std::vector<json::value> parse_yaml_documents(std::string_view text) {
  check_utf8(text);
  std::vector<YAML::Node> nodes;
  try {
    const std::string copy(text);
    check_progress(copy);
    nodes = YAML::LoadAll(copy);
  } catch (const YAML::Exception& error) {
    throw ParseError("invalid YAML at " + where(error.mark) + ": " + error.msg);
  }
  std::vector<json::value> documents;
  ExpansionBudget budget{expansion_limit(text.size()), expansion_limit(text.size())};
  for (const auto& node : nodes) {
    if (node.IsNull()) continue;
    documents.push_back(to_json(node, 0, budget));
  }
  return documents;
}

json::value parse_yaml(std::string_view text) {
  auto documents = parse_yaml_documents(text);
  if (documents.empty()) throw ParseError("the input holds no YAML document");
  if (documents.size() > 1) {
    throw ParseError("expected one YAML document, found " + std::to_string(documents.size()));
  }
  return std::move(documents.front());
}

std::string to_yaml(const json::value& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  out.SetMapFormat(YAML::Block);
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

std::string to_pretty_json(const json::value& value) {
  std::ostringstream out;
  write_pretty(out, value, 0);
  out << '\n';
  return out.str();
}

}  // namespace nvcre::jsonkit
