#include "api/schema.hpp"

#include "api/cel_rules.hpp"
#include "api/schema_validator.hpp"

#include <boost/json.hpp>
#include <re2/re2.h>

#include <set>
#include <stdexcept>

namespace nvcre::api {
namespace json = boost::json;

const SchemaNode* SchemaNode::property(std::string_view name) const {
  auto found = properties.find(name);
  return found == properties.end() ? nullptr : found->second.get();
}

namespace {

// ObjectMeta as the API server decodes it. The CRD's own `metadata` schema is ignored (kube only
// lets it restrict name/generateName, which our CRDs do not), so metadata is checked the same way
// for every kind.
std::shared_ptr<SchemaNode> make_object_meta(ObjectMetaKind kind) {
  auto leaf = [](std::string type, bool nullable = false) {
    auto node = std::make_shared<SchemaNode>();
    node->type = std::move(type);
    node->nullable = nullable;
    return node;
  };
  auto string_map = [&] {
    auto node = leaf("object", true);
    node->additional_properties = leaf("string");
    return node;
  };
  auto meta = leaf("object", kind == ObjectMetaKind::Embedded);
  meta->object_meta = kind;
  for (const char* name :
       {"name", "generateName", "namespace", "selfLink", "uid", "resourceVersion"}) {
    meta->properties[name] = leaf("string");
  }
  for (const char* name : {"creationTimestamp", "deletionTimestamp"}) {
    meta->properties[name] = leaf("string", true);
  }
  meta->properties["generation"] = leaf("integer");
  meta->properties["deletionGracePeriodSeconds"] = leaf("integer", true);
  meta->properties["labels"] = string_map();
  meta->properties["annotations"] = string_map();
  auto finalizers = leaf("array", true);
  finalizers->items = leaf("string");
  meta->properties["finalizers"] = finalizers;
  auto owner = leaf("object");
  for (const char* name : {"apiVersion", "kind", "name", "uid"})
    owner->properties[name] = leaf("string");
  owner->properties["controller"] = leaf("boolean");
  owner->properties["blockOwnerDeletion"] = leaf("boolean");
  owner->required = {"apiVersion", "kind", "name", "uid"};
  auto owners = leaf("array", true);
  owners->items = owner;
  meta->properties["ownerReferences"] = owners;
  auto managed = leaf("array", true);
  managed->items = leaf("object");
  managed->items->preserve_unknown_fields = true;
  meta->properties["managedFields"] = managed;
  return meta;
}

// Schema keywords that only document; accepted and ignored.
const std::set<std::string_view> kDocumentationKeywords = {"description", "title", "example",
                                                           "externalDocs", "$schema"};

class Loader {
 public:
  explicit Loader(std::string crd) : crd_(std::move(crd)) {}

  std::shared_ptr<SchemaNode> parse(const json::value& document, const std::string& path) {
    const auto* props = document.if_object();
    if (props == nullptr) fail(path, "a schema must be an object");
    auto node = std::make_shared<SchemaNode>();
    node->schema_path = path;
    const json::array* rules = nullptr;
    for (const auto& entry : *props) {
      const std::string_view key = entry.key();
      const json::value& value = entry.value();
      if (kDocumentationKeywords.contains(key)) continue;
      if (key == "type") {
        node->type = string_of(value, path, key);
        static const std::set<std::string_view> kTypes = {"object",  "array",  "string",
                                                          "integer", "number", "boolean"};
        if (!kTypes.contains(node->type)) fail(path, "unsupported type '" + node->type + "'");
      } else if (key == "format") {
        node->format = string_of(value, path, key);
      } else if (key == "nullable") {
        node->nullable = bool_of(value, path, key);
      } else if (key == "default") {
        node->default_value = value;
      } else if (key == "enum") {
        if (!value.is_array()) fail(path, "enum must be a list");
        node->enum_values = value.get_array();
      } else if (key == "pattern") {
        node->pattern = string_of(value, path, key);
        auto regex = std::make_shared<re2::RE2>(*node->pattern, re2::RE2::Quiet);
        if (!regex->ok()) fail(path, "invalid pattern '" + *node->pattern + "': " + regex->error());
        node->pattern_regex = std::move(regex);
      } else if (key == "minLength") {
        node->min_length = count_of(value, path, key);
      } else if (key == "maxLength") {
        node->max_length = count_of(value, path, key);
      } else if (key == "minItems") {
        node->min_items = count_of(value, path, key);
      } else if (key == "maxItems") {
        node->max_items = count_of(value, path, key);
      } else if (key == "minProperties") {
        node->min_properties = count_of(value, path, key);
      } else if (key == "maxProperties") {
        node->max_properties = count_of(value, path, key);
      } else if (key == "minimum") {
        node->minimum = number_of(value, path, key);
      } else if (key == "maximum") {
        node->maximum = number_of(value, path, key);
      } else if (key == "multipleOf") {
        node->multiple_of = number_of(value, path, key);
      } else if (key == "exclusiveMinimum") {
        node->exclusive_minimum = bool_of(value, path, key);
      } else if (key == "exclusiveMaximum") {
        node->exclusive_maximum = bool_of(value, path, key);
      } else if (key == "uniqueItems") {
        node->unique_items = bool_of(value, path, key);
      } else if (key == "required") {
        if (!value.is_array()) fail(path, "required must be a list");
        for (const auto& name : value.get_array())
          node->required.push_back(string_of(name, path, key));
      } else if (key == "properties") {
        if (!value.is_object()) fail(path, "properties must be an object");
        for (const auto& property : value.get_object()) {
          const std::string name(property.key());
          node->properties[name] = parse(property.value(), path.empty() ? name : path + "." + name);
        }
      } else if (key == "additionalProperties") {
        if (value.is_bool()) {
          // Structural schemas only allow `true` (kube rejects `false`).
          if (!value.get_bool())
            fail(path, "additionalProperties: false is not allowed in a structural schema");
          node->additional_properties_any = true;
        } else {
          node->additional_properties = parse(value, path + "[*]");
        }
      } else if (key == "items") {
        node->items = parse(value, path + "[*]");
      } else if (key == "anyOf" || key == "allOf") {
        // The only combinator controller-gen emits for our types: IntOrString/Quantity.
        if (!is_int_or_string_combinator(key, value)) {
          fail(path, std::string(key) + " is only supported as the int-or-string pattern");
        }
      } else if (key == "x-kubernetes-preserve-unknown-fields") {
        node->preserve_unknown_fields = bool_of(value, path, key);
      } else if (key == "x-kubernetes-embedded-resource") {
        node->embedded_resource = bool_of(value, path, key);
      } else if (key == "x-kubernetes-int-or-string") {
        node->int_or_string = bool_of(value, path, key);
      } else if (key == "x-kubernetes-list-type") {
        node->list_type = string_of(value, path, key);
      } else if (key == "x-kubernetes-list-map-keys") {
        if (!value.is_array()) fail(path, "x-kubernetes-list-map-keys must be a list");
        for (const auto& name : value.get_array())
          node->list_map_keys.push_back(string_of(name, path, key));
      } else if (key == "x-kubernetes-map-type") {
        node->map_type = string_of(value, path, key);
      } else if (key == "x-kubernetes-validations") {
        if (!value.is_array()) fail(path, "x-kubernetes-validations must be a list");
        rules = &value.get_array();
      } else {
        fail(path, "unsupported schema keyword '" + std::string(key) + "'");
      }
    }
    if (node->embedded_resource) add_embedded_resource_fields(*node);
    // Rules are bound last: their shape checks look at the node's children.
    if (rules != nullptr) {
      for (const auto& rule : *rules) node->rules.push_back(parse_rule(rule, *node, path));
    }
    return node;
  }

  [[noreturn]] void fail(const std::string& path, const std::string& why) const {
    throw std::invalid_argument("CRD " + crd_ + ": schema at " + (path.empty() ? "<root>" : path) +
                                ": " + why);
  }

 private:
  std::string crd_;

  ValidationRule parse_rule(const json::value& document, const SchemaNode& node,
                            const std::string& path) {
    const auto* fields = document.if_object();
    if (fields == nullptr) fail(path, "an x-kubernetes-validations entry must be an object");
    ValidationRule rule;
    for (const auto& entry : *fields) {
      const std::string_view key = entry.key();
      if (key == "rule") {
        rule.rule = string_of(entry.value(), path, key);
      } else if (key == "message") {
        rule.message = trim(string_of(entry.value(), path, key));
      } else if (key == "reason") {
        rule.reason = string_of(entry.value(), path, key);
        static const std::set<std::string_view> kReasons = {
            "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired",
            "FieldValueDuplicate"};
        if (!kReasons.contains(rule.reason))
          fail(path, "unsupported rule reason '" + rule.reason + "'");
      } else if (key == "fieldPath") {
        rule.field_path = string_of(entry.value(), path, key);
        static const re2::RE2 kSimplePath(R"((\.[A-Za-z_][A-Za-z0-9_]*)+)");
        if (!re2::RE2::FullMatch(rule.field_path, kSimplePath)) {
          fail(path, "unsupported rule fieldPath '" + rule.field_path + "'");
        }
      } else if (key == "messageExpression") {
        fail(path, "messageExpression is not supported (rule: " + rule.rule + ")");
      } else if (key == "optionalOldSelf") {
        if (bool_of(entry.value(), path, key)) fail(path, "optionalOldSelf is not supported");
      } else {
        fail(path, "unsupported x-kubernetes-validations field '" + std::string(key) + "'");
      }
    }
    if (rule.rule.empty()) fail(path, "x-kubernetes-validations entry without a rule");
    try {
      rule.program = compile_cel_rule(rule.rule, node);
    } catch (const std::invalid_argument& error) {
      fail(path, "x-kubernetes-validations rule cannot be evaluated (" + std::string(error.what()) +
                     "): " + rule.rule);
    }
    rule.transition = rule.program->uses_old_self;
    return rule;
  }

  static std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
  }

  // anyOf: [{type: integer}, {type: string}], or allOf: [{anyOf: [...]}].
  static bool is_int_or_string_combinator(std::string_view key, const json::value& value) {
    const auto* options = value.if_array();
    if (options == nullptr) return false;
    if (key == "allOf") {
      if (options->size() != 1 || !(*options)[0].is_object()) return false;
      const auto* inner = (*options)[0].get_object().if_contains("anyOf");
      return inner != nullptr && (*options)[0].get_object().size() == 1 &&
             is_int_or_string_combinator("anyOf", *inner);
    }
    if (options->size() != 2) return false;
    auto is_type = [](const json::value& option, std::string_view type) {
      const auto* fields = option.if_object();
      if (fields == nullptr || fields->size() != 1) return false;
      const auto* declared = fields->if_contains("type");
      return declared != nullptr && declared->is_string() && declared->get_string() == type;
    };
    return is_type((*options)[0], "integer") && is_type((*options)[1], "string");
  }

  // An embedded object always accepts apiVersion, kind and ObjectMeta-shaped metadata.
  static void add_embedded_resource_fields(SchemaNode& node) {
    for (const char* name : {"apiVersion", "kind"}) {
      if (!node.properties.contains(name)) {
        auto leaf = std::make_shared<SchemaNode>();
        leaf->type = "string";
        node.properties[name] = leaf;
      }
    }
    auto meta = make_object_meta(ObjectMetaKind::Embedded);
    meta->schema_path = node.schema_path.empty() ? "metadata" : node.schema_path + ".metadata";
    node.properties["metadata"] = meta;
  }

  std::string string_of(const json::value& value, const std::string& path,
                        std::string_view key) const {
    if (!value.is_string()) fail(path, std::string(key) + " must be a string");
    return std::string(value.get_string());
  }
  bool bool_of(const json::value& value, const std::string& path, std::string_view key) const {
    if (!value.is_bool()) fail(path, std::string(key) + " must be a boolean");
    return value.get_bool();
  }
  std::int64_t count_of(const json::value& value, const std::string& path,
                        std::string_view key) const {
    if (value.is_int64() && value.get_int64() >= 0) return value.get_int64();
    if (value.is_uint64()) return static_cast<std::int64_t>(value.get_uint64());
    fail(path, std::string(key) + " must be a non-negative integer");
  }
  double number_of(const json::value& value, const std::string& path, std::string_view key) const {
    if (!value.is_number()) fail(path, std::string(key) + " must be a number");
    return value.to_number<double>();
  }
};

const json::value* find_path(const json::value& root,
                             std::initializer_list<std::string_view> keys) {
  const json::value* current = &root;
  for (auto key : keys) {
    const auto* object = current->if_object();
    if (object == nullptr) return nullptr;
    current = object->if_contains(key);
    if (current == nullptr) return nullptr;
  }
  return current;
}

std::string required_string(const json::value& crd, std::initializer_list<std::string_view> keys,
                            const std::string& what, const std::string& crd_name) {
  const auto* value = find_path(crd, keys);
  if (value == nullptr || !value->is_string() || value->get_string().empty()) {
    throw std::invalid_argument("CRD " + crd_name + ": " + what + " is missing");
  }
  return std::string(value->get_string());
}

// Kube rejects a CRD whose defaults do not validate against their own schema; so do we, so that
// defaulting can never produce an object the validator would refuse.
void check_defaults(const SchemaNode& node, const Loader& loader) {
  if (node.default_value) {
    json::value value = *node.default_value;
    apply_defaults(node, value);
    std::vector<Cause> causes;
    validate_structure(node, value, node.schema_path, causes);
    std::vector<std::string> unknown;
    find_unknown_fields(node, value, node.schema_path, unknown);
    if (!causes.empty())
      loader.fail(node.schema_path, "invalid default: " + causes.front().message);
    if (!unknown.empty())
      loader.fail(node.schema_path, "default has unknown field " + unknown.front());
  }
  for (const auto& entry : node.properties) check_defaults(*entry.second, loader);
  if (node.additional_properties) check_defaults(*node.additional_properties, loader);
  if (node.items) check_defaults(*node.items, loader);
}

void index_defaults(SchemaNode& node) {
  node.defaulted_properties.clear();
  for (const auto& [name, property] : node.properties) {
    if (property->default_value) node.defaulted_properties.emplace_back(name, property.get());
    index_defaults(*property);
  }
  if (node.additional_properties) index_defaults(*node.additional_properties);
  if (node.items) index_defaults(*node.items);
}

// Whether any node carries an x-kubernetes-validations rule.
bool has_validation_rules(const SchemaNode& node) {
  if (!node.rules.empty()) return true;
  for (const auto& [name, property] : node.properties) {
    if (has_validation_rules(*property)) return true;
  }
  if (node.additional_properties && has_validation_rules(*node.additional_properties)) return true;
  return node.items && has_validation_rules(*node.items);
}

}  // namespace

std::vector<CrdSchema> load_crd_schemas(const json::value& crd) {
  const auto* name_value = find_path(crd, {"metadata", "name"});
  const std::string crd_name = name_value != nullptr && name_value->is_string()
                                   ? std::string(name_value->get_string())
                                   : "<unnamed>";
  const auto* api_version = find_path(crd, {"apiVersion"});
  const auto* kind = find_path(crd, {"kind"});
  if (kind == nullptr || !kind->is_string() || kind->get_string() != "CustomResourceDefinition" ||
      api_version == nullptr || !api_version->is_string() ||
      api_version->get_string() != "apiextensions.k8s.io/v1") {
    throw std::invalid_argument("CRD " + crd_name +
                                ": not an apiextensions.k8s.io/v1 CustomResourceDefinition");
  }
  CrdSchema base;
  base.crd_name = crd_name;
  base.group = required_string(crd, {"spec", "group"}, "spec.group", crd_name);
  base.kind = required_string(crd, {"spec", "names", "kind"}, "spec.names.kind", crd_name);
  base.plural = required_string(crd, {"spec", "names", "plural"}, "spec.names.plural", crd_name);
  const std::string scope = required_string(crd, {"spec", "scope"}, "spec.scope", crd_name);
  if (scope != "Namespaced" && scope != "Cluster") {
    throw std::invalid_argument("CRD " + crd_name + ": spec.scope must be Namespaced or Cluster");
  }
  base.namespaced = scope == "Namespaced";
  if (crd_name != base.plural + "." + base.group) {
    throw std::invalid_argument("CRD " + crd_name + ": metadata.name must be " + base.plural + "." +
                                base.group);
  }
  const auto* versions = find_path(crd, {"spec", "versions"});
  if (versions == nullptr || !versions->is_array() || versions->get_array().empty()) {
    throw std::invalid_argument("CRD " + crd_name + ": spec.versions is missing");
  }

  std::vector<CrdSchema> schemas;
  for (const auto& version : versions->get_array()) {
    CrdSchema schema = base;
    schema.version = required_string(version, {"name"}, "spec.versions[].name", crd_name);
    const auto* served = find_path(version, {"served"});
    if (served != nullptr && served->is_bool() && !served->get_bool()) continue;
    schema.status_subresource = find_path(version, {"subresources", "status"}) != nullptr;
    const auto* document = find_path(version, {"schema", "openAPIV3Schema"});
    const std::string label = crd_name + " (" + schema.version + ")";
    if (document == nullptr) throw std::invalid_argument("CRD " + label + ": no openAPIV3Schema");
    Loader loader(label);
    auto root = loader.parse(*document, "");
    if (root->type != "object") loader.fail("", "the root schema must be of type object");
    for (const char* field : {"apiVersion", "kind"}) {
      if (!root->properties.contains(field)) {
        auto leaf = std::make_shared<SchemaNode>();
        leaf->type = "string";
        leaf->schema_path = field;
        root->properties[field] = leaf;
      }
    }
    auto meta = make_object_meta(ObjectMetaKind::Root);
    meta->schema_path = "metadata";
    root->properties["metadata"] = meta;
    index_defaults(*root);  // first: checking a default applies the defaults nested in it
    check_defaults(*root, loader);
    schema.has_validation_rules = has_validation_rules(*root);
    schema.root = std::move(root);
    schemas.push_back(std::move(schema));
  }
  return schemas;
}

}  // namespace nvcre::api
