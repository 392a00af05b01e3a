// Schema (OpenAPI) validation: the kube-openapi validators as apiextensions-apiserver converts
// their results into field errors, plus the ObjectMeta / embedded-resource checks.
#include "api/schema_validator.hpp"

#include "k8s/label_validation.hpp"

#include <boost/json.hpp>
#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace nvcre::api {
namespace json = boost::json;

std::string child_path(const std::string& base, std::string_view name) {
  return base.empty() ? std::string(name) : base + "." + std::string(name);
}

std::string index_path(const std::string& base, std::size_t index) {
  return base + "[" + std::to_string(index) + "]";
}

namespace {

// field.Path.String() of the root.
std::string field_of(const std::string& path) { return path.empty() ? "<nil>" : path; }

void add(std::vector<Cause>& causes, const std::string& path, std::string_view type,
         std::string message) {
  causes.push_back({field_of(path), std::string(type), std::move(message)});
}

// field.Invalid(path, value, detail)
void add_invalid(std::vector<Cause>& causes, const std::string& path,
                 const std::string& rendered_value, const std::string& detail) {
  add(causes, path, cause_type::kInvalid, "Invalid value: " + rendered_value + ": " + detail);
}

// JSON kinds as kube-openapi names them; integral doubles count as integers (YAML `2.0`).
bool is_integral(const json::value& value) {
  if (value.is_int64() || value.is_uint64()) return true;
  if (!value.is_double()) return false;
  const double number = value.get_double();
  return std::isfinite(number) && std::trunc(number) == number;
}

bool type_matches(const SchemaNode& node, const json::value& value) {
  if (node.int_or_string) return value.is_string() || is_integral(value);
  if (node.type.empty()) return true;
  if (node.type == "object") return value.is_object();
  if (node.type == "array") return value.is_array();
  if (node.type == "string") return value.is_string();
  if (node.type == "boolean") return value.is_bool();
  if (node.type == "integer") return is_integral(value);
  if (node.type == "number") return value.is_number();
  return false;
}

std::int64_t rune_count(std::string_view text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// RFC 3339 and the looser layouts go-openapi's strfmt.DateTime also parses (no seconds, no zone).
bool is_date_time(std::string_view text) {
  static const re2::RE2 kRfc3339(
      R"(^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$)");
  return re2::RE2::FullMatch(text, kRfc3339);
}

bool enum_contains(const json::array& values, const json::value& value) {
  return std::any_of(values.begin(), values.end(), [&](const json::value& candidate) {
    if (candidate.is_number() && value.is_number())
      return candidate.to_number<double>() == value.to_number<double>();
    return candidate == value;
  });
}

// field.NotSupported quotes every supported value; non-strings are JSON-encoded first.
std::string supported_values(const json::array& values) {
  std::string out = "supported values: ";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += go_quote(values[i].is_string() ? std::string(values[i].get_string())
                                          : json::serialize(values[i]));
  }
  return out;
}

void validate_string(const SchemaNode& node, std::string_view text, const std::string& path,
                     std::vector<Cause>& causes) {
  const std::string quoted = go_quote(text);
  // kube-openapi's string validator stops at the first failure, in this order.
  if (node.max_length && rune_count(text) > *node.max_length) {
    add(causes, path, cause_type::kTooLong,
        "Too long: may not be more than " + std::to_string(*node.max_length) + " bytes");
  } else if (node.min_length && rune_count(text) < *node.min_length) {
    add_invalid(
        causes, path, quoted,
        path + " in body should be at least " + std::to_string(*node.min_length) + " chars long");
  } else if (node.pattern_regex && !re2::RE2::PartialMatch(text, *node.pattern_regex)) {
    add_invalid(causes, path, quoted, path + " in body should match '" + *node.pattern + "'");
  }
  if (node.format == "date-time" && !is_date_time(text)) {
    add(causes, path, cause_type::kTypeInvalid,
        "Invalid value: " + quoted + ": " + path + " in body must be of type date-time: " + quoted);
  }
}

void validate_number(const SchemaNode& node, const json::value& value, const std::string& path,
                     std::vector<Cause>& causes) {
  const double number = value.to_number<double>();
  const std::string rendered = go_value(value);
  // kube-openapi compares integer data with the bound as an integer (and prints it so, 1000000
  // rather than 1e+06); other data with the float bound.
  auto bound = [&](double limit) {
    const bool integral_data = value.is_int64() || value.is_uint64();
    if (integral_data && std::trunc(limit) == limit && std::fabs(limit) < 9.2e18) {
      return std::to_string(static_cast<std::int64_t>(limit));
    }
    return go_float(limit);
  };
  if (node.multiple_of && *node.multiple_of > 0) {
    const double quotient = number / *node.multiple_of;
    if (std::trunc(quotient) != quotient) {
      add_invalid(causes, path, rendered,
                  path + " in body should be a multiple of " + bound(*node.multiple_of));
    }
  }
  if (node.maximum && (node.exclusive_maximum ? number >= *node.maximum : number > *node.maximum)) {
    add_invalid(causes, path, rendered,
                path + " in body should be less than " +
                    (node.exclusive_maximum ? "" : "or equal to ") + bound(*node.maximum));
  }
  if (node.minimum && (node.exclusive_minimum ? number <= *node.minimum : number < *node.minimum)) {
    add_invalid(causes, path, rendered,
                path + " in body should be greater than " +
                    (node.exclusive_minimum ? "" : "or equal to ") + bound(*node.minimum));
  }
}

void validate_array(const SchemaNode& node, const json::array& items, const std::string& path,
                    std::vector<Cause>& causes) {
  if (node.items) {
    for (std::size_t i = 0; i < items.size(); ++i)
      validate_structure(*node.items, items[i], index_path(path, i), causes);
  }
  const auto size = static_cast<std::int64_t>(items.size());
  if (node.min_items && size < *node.min_items) {
    add_invalid(
        causes, path, std::to_string(size),
        path + " in body should have at least " + std::to_string(*node.min_items) + " items");
  }
  if (node.max_items && size > *node.max_items) {
    add(causes, path, cause_type::kTooMany,
        "Too many: " + std::to_string(size) + ": must have at most " +
            std::to_string(*node.max_items) + " items");
  }
  if (node.unique_items) {
    for (std::size_t i = 0; i < items.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (items[i] == items[j]) {
          add_invalid(causes, path, "\"\"", path + " in body shouldn't contain duplicates");
          return;
        }
      }
    }
  }
}

void validate_embedded_resource(const json::object& object, const std::string& path,
                                std::vector<Cause>& causes) {
  for (const char* field : {"apiVersion", "kind"}) {
    const auto* value = object.if_contains(field);
    const std::string where = child_path(path, field);
    if (value == nullptr) {
      add(causes, where, cause_type::kRequired, "Required value: must not be empty");
    } else if (!value->is_string()) {
      add_invalid(causes, where, go_value(*value), "must be a string");
    } else if (value->get_string().empty()) {
      add_invalid(causes, where, "\"\"", "must not be empty");
    } else if (std::string_view(field) == "apiVersion" &&
               std::count(value->get_string().begin(), value->get_string().end(), '/') > 1) {
      add_invalid(causes, where, go_quote(value->get_string()),
                  "unexpected GroupVersion string: " + std::string(value->get_string()));
    }
  }
}

void validate_object(const SchemaNode& node, const json::object& object, const std::string& path,
                     std::vector<Cause>& causes) {
  const auto size = static_cast<std::int64_t>(object.size());
  // kube-openapi returns at once on a property-count failure: nothing inside is checked.
  if (node.min_properties && size < *node.min_properties) {
    add_invalid(causes, path, std::to_string(size),
                path + " in body should have at least " + std::to_string(*node.min_properties) +
                    " properties");
    return;
  }
  if (node.max_properties && size > *node.max_properties) {
    add(causes, path, cause_type::kTooMany,
        "Too many: " + std::to_string(size) + ": must have at most " +
            std::to_string(*node.max_properties) + " items");
    return;
  }
  for (const auto& entry : object) {
    const std::string key(entry.key());
    if (const SchemaNode* property = node.property(key)) {
      validate_structure(*property, entry.value(), child_path(path, key), causes);
    } else if (node.additional_properties) {
      // kube-openapi names map entries "<map>.<key>", not "<map>[<key>]".
      validate_structure(*node.additional_properties, entry.value(), child_path(path, key), causes);
    }
  }
  for (const auto& name : node.required) {
    if (!object.contains(name))
      add(causes, child_path(path, name), cause_type::kRequired, "Required value");
  }
  if (node.embedded_resource) validate_embedded_resource(object, path, causes);
  if (node.object_meta != ObjectMetaKind::None)
    validate_object_meta(node.object_meta, object, path, causes);
}

// Shortest decimal digits and decimal exponent of a finite non-zero double.
void shortest_digits(double value, std::string& digits, int& exponent) {
  char buffer[64];
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string text(buffer, end);  // d[.ddd]e[+-]xx
  const auto e = text.find('e');
  exponent = std::stoi(text.substr(e + 1));
  for (char c : text.substr(0, e)) {
    if (c >= '0' && c <= '9') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

}  // namespace

void validate_structure(const SchemaNode& node, const json::value& value, const std::string& path,
                        std::vector<Cause>& causes) {
  if (value.is_null()) {
    if ((!node.type.empty() || node.int_or_string) && !node.nullable) {
      const std::string type = node.int_or_string ? "integer,string" : node.type;
      add(causes, path, cause_type::kTypeInvalid,
          "Invalid value: \"null\": " + path + " in body must be of type " + type + ": \"null\"");
    }
    return;
  }
  if (!type_matches(node, value)) {
    const std::string actual = schema_type_name(value);
    const std::string type = node.int_or_string ? "integer,string" : node.type;
    add(causes, path, cause_type::kTypeInvalid,
        "Invalid value: " + go_quote(actual) + ": " + path + " in body must be of type " + type +
            ": " + go_quote(actual));
  } else if (const auto* text = value.if_string()) {
    validate_string(node, *text, path, causes);
  } else if (value.is_number()) {
    validate_number(node, value, path, causes);
  } else if (const auto* items = value.if_array()) {
    validate_array(node, *items, path, causes);
  } else if (const auto* object = value.if_object()) {
    validate_object(node, *object, path, causes);
  }
  if (node.enum_values && !enum_contains(*node.enum_values, value)) {
    add(causes, path, cause_type::kNotSupported,
        "Unsupported value: " + go_value(value) + ": " + supported_values(*node.enum_values));
  }
}

void validate_object_meta(ObjectMetaKind kind, const json::object& meta, const std::string& path,
                          std::vector<Cause>& causes) {
  auto string_at = [&](std::string_view key) -> std::string_view {
    const auto* value = meta.if_contains(key);
    return value != nullptr && value->is_string() ? std::string_view(value->get_string())
                                                  : std::string_view();
  };
  const std::string_view name = string_at("name");
  const std::string_view generate_name = string_at("generateName");
  if (kind == ObjectMetaKind::Root && name.empty() && generate_name.empty()) {
    add(causes, child_path(path, "name"), cause_type::kRequired,
        "Required value: name or generateName is required");
  }
  if (!name.empty()) {
    for (const auto& message : k8s::dns1123_subdomain_errors(name)) {
      add_invalid(causes, child_path(path, "name"), go_quote(name), message);
    }
  }
  if (!generate_name.empty()) {
    // The generated suffix is appended, so a trailing '-' is allowed (kube masks it).
    std::string_view prefix = generate_name;
    if (prefix.ends_with('-')) prefix.remove_suffix(1);
    for (const auto& message : k8s::dns1123_subdomain_errors(prefix)) {
      add_invalid(causes, child_path(path, "generateName"), go_quote(generate_name), message);
    }
  }
  const std::string_view namespace_name = string_at("namespace");
  if (!namespace_name.empty()) {
    for (const auto& message : k8s::dns1123_label_errors(namespace_name)) {
      add_invalid(causes, child_path(path, "namespace"), go_quote(namespace_name), message);
    }
  }
  // ValidateLabels / ValidateAnnotations report at the map itself, naming the offending key.
  if (const auto* labels = meta.if_contains("labels"); labels != nullptr && labels->is_object()) {
    const std::string where = child_path(path, "labels");
    for (const auto& entry : labels->get_object()) {
      for (const auto& message : k8s::qualified_name_errors(entry.key())) {
        add_invalid(causes, where, go_quote(entry.key()), message);
      }
      if (entry.value().is_string()) {
        for (const auto& message : k8s::label_value_errors(entry.value().get_string())) {
          add_invalid(causes, where, go_quote(entry.value().get_string()), message);
        }
      }
    }
  }
  if (const auto* annotations = meta.if_contains("annotations");
      annotations != nullptr && annotations->is_object()) {
    const std::string where = child_path(path, "annotations");
    std::size_t total = 0;
    for (const auto& entry : annotations->get_object()) {
      std::string lowered(entry.key());
      std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      for (const auto& message : k8s::qualified_name_errors(lowered)) {
        add_invalid(causes, where, go_quote(entry.key()), message);
      }
      total += entry.key().size();
      if (entry.value().is_string()) total += entry.value().get_string().size();
    }
    constexpr std::size_t kTotalAnnotationSizeLimit = 256 * 1024;
    if (total > kTotalAnnotationSizeLimit) {
      add(causes, where, cause_type::kTooLong,
          "Too long: may not be more than " + std::to_string(kTotalAnnotationSizeLimit) + " bytes");
    }
  }
}

void sort_causes(std::vector<Cause>& causes) {
  std::sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) {
    return std::tie(a.field, a.message, a.type) < std::tie(b.field, b.message, b.type);
  });
}

bool is_blocking(const Cause& cause) {
  return cause.type == cause_type::kNotSupported || cause.type == cause_type::kRequired ||
         cause.type == cause_type::kTooLong || cause.type == cause_type::kTooMany ||
         cause.type == cause_type::kTypeInvalid;
}

Cause rules_not_checked_cause() {
  return {
      "<nil>", std::string(cause_type::kInvalid),
      "Invalid value: null: some validation rules were not checked because the object was invalid; "
      "correct the existing errors to complete validation"};
}

std::string schema_type_name(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
      return "integer";
    case json::kind::double_:
      return is_integral(value) ? "integer" : "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "unknown";
}

std::string go_quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\a':
        out += "\\a";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\v':
        out += "\\v";
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
      out += buffer;
    } else {
      // Multi-byte UTF-8 is printable text for our purposes; Go keeps it as is.
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string go_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  std::string digits;
  int exponent = 0;
  shortest_digits(std::fabs(value), digits, exponent);
  std::string out = value < 0 ? "-" : "";
  // fmt's %v is strconv.FormatFloat(v, 'g', -1, 64): exponent form when the decimal exponent is
  // below -4 or at least 6 (the shortest-representation rule), e.g. 1e+06.
  constexpr int eprec = 6;
  if (exponent < -4 || exponent >= eprec) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return out + buffer;
  }
  if (exponent < 0)
    return out + "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  if (static_cast<int>(digits.size()) <= exponent + 1) {
    return out + digits + std::string(static_cast<std::size_t>(exponent + 1) - digits.size(), '0');
  }
  return out + digits.substr(0, static_cast<std::size_t>(exponent + 1)) + "." +
         digits.substr(static_cast<std::size_t>(exponent + 1));
}

std::string go_value(const json::value& value) {
  switch (value.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return value.get_bool() ? "true" : "false";
    case json::kind::int64:
      return std::to_string(value.get_int64());
    case json::kind::uint64:
      return std::to_string(value.get_uint64());
    case json::kind::double_:
      return go_float(value.get_double());
    case json::kind::string:
      return go_quote(value.get_string());
    default:
      return json::serialize(value);
  }
}

}  // namespace nvcre::api
