#include "api/cel_rules.hpp"

#include "api/schema.hpp"
#include "k8s/duration.hpp"
#include "k8s/quantity.hpp"

#include <boost/json.hpp>
#include <re2/re2.h>

#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

namespace nvcre::api {
namespace json = boost::json;

namespace {

using Eval = std::function<CelEvaluation(const json::value&, const json::value*)>;

// ---- CEL value helpers -------------------------------------------------------------------------

// CEL's size() on strings counts code points, not bytes.
std::int64_t cel_size(std::string_view text) {
  std::int64_t count = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++count;
  }
  return count;
}

std::string_view before_first_slash(std::string_view text) {
  // `s.split('/')[0]`: split always yields at least one element.
  return text.substr(0, text.find('/'));
}

bool has_field(const json::value& object, std::string_view name) {
  const auto* fields = object.if_object();
  return fields != nullptr && fields->contains(name);
}

// CEL `string(x)` for the int-or-string values quantity rules read.
std::optional<std::string> cel_string(const json::value& value) {
  if (const auto* text = value.if_string()) return std::string(*text);
  if (const auto* number = value.if_int64()) return std::to_string(*number);
  if (const auto* number = value.if_uint64()) return std::to_string(*number);
  // kubectl sends YAML's `2.0` as JSON 2, so an integral float is that integer.
  if (const auto* number = value.if_double(); number != nullptr && std::isfinite(*number) &&
                                              std::trunc(*number) == *number &&
                                              std::fabs(*number) < 9.2e18) {
    return std::to_string(static_cast<std::int64_t>(*number));
  }
  return std::nullopt;
}

// CEL `quantity(string(x))`; on failure the text of apimachinery's ParseQuantity error.
struct QuantityOrError {
  std::optional<k8s::Quantity> quantity;
  std::string error;
};

QuantityOrError cel_quantity(const json::value& value) {
  auto text = cel_string(value);
  if (!text) return {std::nullopt, "no such overload"};
  if (auto quantity = k8s::Quantity::parse(*text)) return {quantity, {}};
  // ParseQuantity scans sign, digits, fraction, suffix letters and an exponent; text that does not
  // scan is a format error (its message quotes this expression), anything else a bad suffix.
  static const re2::RE2 scan(R"(^[+-]?[0-9]*(\.[0-9]*)?[eEinumkKMGTP]*[+-]?[0-9]*$)");
  if (text->empty() || !re2::RE2::FullMatch(*text, scan)) {
    return {std::nullopt,
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"};
  }
  return {std::nullopt, "unable to parse quantity's suffix"};
}

// CEL `duration(x)` of a string: Go's time.ParseDuration; other input, or text that does not parse,
// is CEL's conversion error.
struct DurationOrError {
  std::optional<std::chrono::nanoseconds> duration;
  std::string error;
};

DurationOrError cel_duration(const json::value& value) {
  if (const auto* text = value.if_string()) {
    if (auto parsed = k8s::parse_go_duration(*text)) return {parsed, {}};
  }
  return {std::nullopt, "type conversion error from 'string' to 'google.protobuf.Duration'"};
}

// ---- Shape checks (what kube's CEL type-checker would reject at CRD creation) -------------------

using Check = void (*)(const SchemaNode&);

[[noreturn]] void reject(const std::string& why) { throw std::invalid_argument(why); }

void expect_string(const SchemaNode& node) {
  if (node.type != "string")
    reject("the rule needs a string, the schema node is '" + node.type + "'");
}

void expect_string_map(const SchemaNode& node) {
  if (node.type != "object" || node.additional_properties == nullptr) {
    reject("the rule needs a map (object with additionalProperties)");
  }
}

void expect_quantity(const SchemaNode& node) {
  if (!node.int_or_string && node.type != "string") {
    reject("the rule needs an int-or-string or string quantity");
  }
}

const SchemaNode& expect_property(const SchemaNode& node, std::string_view name) {
  const SchemaNode* child = node.type == "object" ? node.property(name) : nullptr;
  if (child == nullptr) {
    reject("the rule reads field '" + std::string(name) +
           "', which the schema node does not declare");
  }
  return *child;
}

void expect_resource_pair(const SchemaNode& node, std::string_view resource) {
  expect_quantity(expect_property(expect_property(node, "requests"), resource));
  expect_quantity(expect_property(expect_property(node, "limits"), resource));
}

// ---- Rule implementations
// ------------------------------------------------------------------------

bool is_reserved_label_key(std::string_view key) {
  return key == "app.kubernetes.io/managed-by" || key.starts_with("nvcre.nvidia.com/");
}

CelEvaluation all_keys(const json::value& self, bool (*predicate)(std::string_view)) {
  for (const auto& entry : self.as_object()) {
    if (!predicate(entry.key())) return CelEvaluation::of(false);
  }
  return CelEvaluation::of(true);
}

bool label_key_grammar(std::string_view key) {
  static const re2::RE2 grammar(
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
      "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");
  return re2::RE2::PartialMatch(key, grammar);
}

bool prefix_within_253(std::string_view key) {
  return key.find('/') == std::string_view::npos || cel_size(before_first_slash(key)) <= 253;
}

CelEvaluation non_negative_quantity(const json::value& self, const json::value*) {
  auto parsed = cel_quantity(self);
  if (!parsed.quantity) return CelEvaluation::failure(parsed.error);
  return CelEvaluation::of(!parsed.quantity->is_negative());
}

// `!has(self.requests) || !has(self.limits) || !has(self.requests.R) || !has(self.limits.R) ||
//  quantity(string(self.requests.R)).compareTo(quantity(string(self.limits.R))) <= 0`
CelEvaluation request_within_limit(const json::value& self, std::string_view resource) {
  const auto& fields = self.as_object();
  const auto* requests = fields.if_contains("requests");
  const auto* limits = fields.if_contains("limits");
  if (requests == nullptr || limits == nullptr) return CelEvaluation::of(true);
  if (!has_field(*requests, resource) || !has_field(*limits, resource)) {
    return CelEvaluation::of(true);
  }
  auto request = cel_quantity(requests->as_object().at(resource));
  if (!request.quantity) return CelEvaluation::failure(request.error);
  auto limit = cel_quantity(limits->as_object().at(resource));
  if (!limit.quantity) return CelEvaluation::failure(limit.error);
  return CelEvaluation::of(*request.quantity <= *limit.quantity);
}

// `!has(self.maxBackoff) || !has(self.initialBackoff) ||
//  duration(self.maxBackoff) >= duration(self.initialBackoff)`
CelEvaluation backoff_in_order(const json::value& self, const json::value*) {
  const auto& fields = self.as_object();
  const auto* initial = fields.if_contains("initialBackoff");
  const auto* maximum = fields.if_contains("maxBackoff");
  if (initial == nullptr || maximum == nullptr) return CelEvaluation::of(true);
  auto max_duration = cel_duration(*maximum);
  if (!max_duration.duration) return CelEvaluation::failure(max_duration.error);
  auto initial_duration = cel_duration(*initial);
  if (!initial_duration.duration) return CelEvaluation::failure(initial_duration.error);
  return CelEvaluation::of(*max_duration.duration >= *initial_duration.duration);
}

struct RuleDefinition {
  Check check;
  Eval evaluate;
};

const std::map<std::string_view, RuleDefinition>& registry() {
  static const std::map<std::string_view, RuleDefinition> rules = {
      // R2: queueLabelKey prefix length.
      {"!self.contains('/') || self.split('/')[0].size() <= 253",
       {expect_string,
        [](const json::value& self, const json::value*) {
          return CelEvaluation::of(prefix_within_253(self.as_string()));
        }}},
      // R3: queueLabelKey must not be a reserved key.
      {"self != 'app.kubernetes.io/managed-by' && !self.startsWith('nvcre.nvidia.com/')",
       {expect_string,
        [](const json::value& self, const json::value*) {
          return CelEvaluation::of(!is_reserved_label_key(self.as_string()));
        }}},
      // R4: workload labels must not use reserved keys.
      {"self.all(k, k != 'app.kubernetes.io/managed-by' && !k.startsWith('nvcre.nvidia.com/'))",
       {expect_string_map,
        [](const json::value& self, const json::value*) {
          return all_keys(self, [](std::string_view key) { return !is_reserved_label_key(key); });
        }}},
      // R5: label-key grammar.
      {"self.all(k, "
       "k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
       "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$'))",
       {expect_string_map, [](const json::value& self,
                              const json::value*) { return all_keys(self, label_key_grammar); }}},
      // R6: label-key prefix length.
      {"self.all(k, !k.contains('/') || k.split('/')[0].size() <= 253)",
       {expect_string_map, [](const json::value& self,
                              const json::value*) { return all_keys(self, prefix_within_253); }}},
      // R7: NIC resource names may not live in Kubernetes-reserved domains.
      {"!self.startsWith('kubernetes.io/') && !self.startsWith('k8s.io/') && "
       "!self.split('/')[0].endsWith('.kubernetes.io') && !self.split('/')[0].endsWith('.k8s.io')",
       {expect_string,
        [](const json::value& self, const json::value*) {
          std::string_view name = self.as_string();
          std::string_view domain = before_first_slash(name);
          return CelEvaluation::of(
              !name.starts_with("kubernetes.io/") && !name.starts_with("k8s.io/") &&
              !domain.ends_with(".kubernetes.io") && !domain.ends_with(".k8s.io"));
        }}},
      // R8: quantities must not be negative.
      {"!quantity(string(self)).isLessThan(quantity('0'))",
       {expect_quantity, non_negative_quantity}},
      // R9 / R10: requests must not exceed limits.
      {"!has(self.requests) || !has(self.limits) || !has(self.requests.cpu) || "
       "!has(self.limits.cpu) || "
       "quantity(string(self.requests.cpu)).compareTo(quantity(string(self.limits.cpu))) <= 0",
       {[](const SchemaNode& node) { expect_resource_pair(node, "cpu"); },
        [](const json::value& self, const json::value*) {
          return request_within_limit(self, "cpu");
        }}},
      {"!has(self.requests) || !has(self.limits) || !has(self.requests.memory) || "
       "!has(self.limits.memory) || "
       "quantity(string(self.requests.memory)).compareTo(quantity(string(self.limits.memory))) <= "
       "0",
       {[](const SchemaNode& node) { expect_resource_pair(node, "memory"); },
        [](const json::value& self, const json::value*) {
          return request_within_limit(self, "memory");
        }}},
      // R11 / R12: torch takes exactly one of script and module.
      {"!(has(self.script) && has(self.module))",
       {[](const SchemaNode& node) {
          expect_property(node, "script");
          expect_property(node, "module");
        },
        [](const json::value& self, const json::value*) {
          return CelEvaluation::of(!(has_field(self, "script") && has_field(self, "module")));
        }}},
      {"has(self.script) || has(self.module)",
       {[](const SchemaNode& node) {
          expect_property(node, "script");
          expect_property(node, "module");
        },
        [](const json::value& self, const json::value*) {
          return CelEvaluation::of(has_field(self, "script") || has_field(self, "module"));
        }}},
      // R13: workload config comes inline or from a ConfigMap, not both.
      {"!(has(self.inline) && has(self.configMapRef))",
       {[](const SchemaNode& node) {
          expect_property(node, "inline");
          expect_property(node, "configMapRef");
        },
        [](const json::value& self, const json::value*) {
          return CelEvaluation::of(!(has_field(self, "inline") && has_field(self, "configMapRef")));
        }}},
      // R16: a retry cycle's backoff never shrinks.
      {"!has(self.maxBackoff) || !has(self.initialBackoff) || "
       "duration(self.maxBackoff) >= duration(self.initialBackoff)",
       {[](const SchemaNode& node) {
          expect_string(expect_property(node, "maxBackoff"));
          expect_string(expect_property(node, "initialBackoff"));
        },
        backoff_in_order}},
  };
  return rules;
}

// `duration(self) >= duration('A') && duration(self) <= duration('B')` (both bounds literal): the
// range rules of the report-export durations. nullopt when `text` is not of that shape; throws
// when a bound is not a duration (kube's type-checker refuses the CRD then).
std::optional<Eval> duration_range_rule(const std::string& text) {
  static const re2::RE2 shape(
      R"(^duration\(self\) >= duration\('([^']*)'\) && duration\(self\) <= duration\('([^']*)'\)$)");
  std::string low_text, high_text;
  if (!re2::RE2::FullMatch(text, shape, &low_text, &high_text)) return std::nullopt;
  auto low = k8s::parse_go_duration(low_text);
  auto high = k8s::parse_go_duration(high_text);
  if (!low || !high) reject("a bound of the duration range is not a duration");
  return Eval([low = *low, high = *high](const json::value& self, const json::value*) {
    auto value = cel_duration(self);
    if (!value.duration) return CelEvaluation::failure(value.error);
    return CelEvaluation::of(*value.duration >= low && *value.duration <= high);
  });
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

// The fields of `has(self.A) == has(oldSelf.A) && has(self.B) == has(oldSelf.B) ...`, or nullopt
// when `text` is not of that shape. Throws when a term compares two different fields.
std::optional<std::vector<std::string>> presence_fields(std::string_view text) {
  static const re2::RE2 presence(
      R"(^has\(self\.([A-Za-z_][A-Za-z0-9_]*)\)\s*==\s*has\(oldSelf\.([A-Za-z_][A-Za-z0-9_]*)\)$)");
  std::vector<std::string> fields;
  std::string_view rest = text;
  while (true) {
    const auto split = rest.find("&&");
    const std::string term = trim(rest.substr(0, split));
    std::string field, old_field;
    if (!re2::RE2::FullMatch(term, presence, &field, &old_field)) return std::nullopt;
    if (field != old_field) {
      reject("has(self." + field + ") is compared with a different field of oldSelf");
    }
    fields.push_back(std::move(field));
    if (split == std::string_view::npos) return fields;
    rest = rest.substr(split + 2);
  }
}

}  // namespace

bool cel_equal(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double()) return a.to_number<double>() == b.to_number<double>();
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const auto& signed_value = a.is_int64() ? a : b;
    const auto& unsigned_value = a.is_int64() ? b : a;
    return signed_value.get_int64() >= 0 &&
           static_cast<std::uint64_t>(signed_value.get_int64()) == unsigned_value.get_uint64();
  }
  if (a.kind() != b.kind()) return false;
  if (const auto* object = a.if_object()) {
    const auto& other = b.get_object();
    if (object->size() != other.size()) return false;
    for (const auto& entry : *object) {
      const auto* match = other.if_contains(entry.key());
      if (match == nullptr || !cel_equal(entry.value(), *match)) return false;
    }
    return true;
  }
  if (const auto* array = a.if_array()) {
    const auto& other = b.get_array();
    if (array->size() != other.size()) return false;
    for (std::size_t i = 0; i < array->size(); ++i) {
      if (!cel_equal((*array)[i], other[i])) return false;
    }
    return true;
  }
  return a == b;
}

std::shared_ptr<const CelProgram> compile_cel_rule(std::string_view rule, const SchemaNode& node) {
  auto program = std::make_shared<CelProgram>();
  program->text = std::string(rule);
  const std::string text = trim(rule);

  if (text == "self == oldSelf") {
    program->uses_old_self = true;
    program->evaluate = [](const json::value& self, const json::value* old_self) {
      return CelEvaluation::of(old_self != nullptr && cel_equal(self, *old_self));
    };
    return program;
  }

  // has(self.X) == has(oldSelf.X), alone or as a conjunction over several fields: pins the
  // presence of optional fields across updates (one message for a group of fields).
  if (auto fields = presence_fields(text)) {
    for (const auto& field : *fields) expect_property(node, field);
    program->uses_old_self = true;
    program->evaluate = [fields = *fields](const json::value& self, const json::value* old_self) {
      if (old_self == nullptr) return CelEvaluation::of(false);
      for (const auto& field : fields) {
        if (has_field(self, field) != has_field(*old_self, field)) return CelEvaluation::of(false);
      }
      return CelEvaluation::of(true);
    };
    return program;
  }

  if (auto range = duration_range_rule(text)) {
    expect_string(node);
    program->evaluate = std::move(*range);
    return program;
  }

  const auto& rules = registry();
  auto found = rules.find(text);
  if (found == rules.end()) reject("no C++ implementation is registered for this rule");
  found->second.check(node);
  program->evaluate = found->second.evaluate;
  return program;
}

std::vector<std::string_view> registered_cel_rules() {
  std::vector<std::string_view> texts;
  for (const auto& entry : registry()) texts.push_back(entry.first);
  return texts;
}

}  // namespace nvcre::api
