#include "api/validation.hpp"

#include "jsonkit/paths.hpp"

#include "jsonkit/yaml.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace nvcre::api {
namespace json = boost::json;

namespace {

ValidationResult rejected(std::vector<Cause> causes) {
  sort_causes(causes);
  return {false, std::move(causes)};
}

std::string supported(const std::vector<std::string>& values) {
  std::string out = "supported values: ";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i > 0 ? ", " : "") + go_quote(values[i]);
  return out;
}

// Finds the CRD serving the object; otherwise says why in `causes`.
const CrdSchema* resolve(const json::value& object, const SchemaRegistry& registry,
                         std::vector<Cause>& causes) {
  const auto* fields = object.if_object();
  if (fields == nullptr) {
    const std::string type = schema_type_name(object);
    causes.push_back({"<nil>", std::string(cause_type::kTypeInvalid),
                      "Invalid value: " + go_quote(type) +
                          ": the object must be of type object: " + go_quote(type)});
    return nullptr;
  }
  const std::string_view api_version = jsonkit::view_of(fields, "apiVersion");
  const std::string_view kind = jsonkit::view_of(fields, "kind");
  if (api_version.empty())
    causes.push_back({"apiVersion", std::string(cause_type::kRequired), "Required value"});
  if (kind.empty())
    causes.push_back({"kind", std::string(cause_type::kRequired), "Required value"});
  if (api_version.empty() || kind.empty()) return nullptr;
  if (const CrdSchema* schema = registry.find(api_version, kind)) return schema;

  std::vector<std::string> versions;
  for (const auto& schema : registry.schemas()) {
    if (schema.kind == kind) versions.push_back(schema.api_version());
  }
  if (!versions.empty()) {
    std::sort(versions.begin(), versions.end());
    causes.push_back({"apiVersion", std::string(cause_type::kNotSupported),
                      "Unsupported value: " + go_quote(api_version) + ": " + supported(versions)});
  } else {
    causes.push_back({"kind", std::string(cause_type::kNotSupported),
                      "Unsupported value: " + go_quote(kind) + ": " + supported(registry.kinds())});
  }
  return nullptr;
}

// The shared tail of create and update: `object` and `old_object` are normalised copies.
ValidationResult run(const CrdSchema& schema, const json::value& object,
                     const json::value* old_object) {
  std::vector<std::string> unknown;
  find_unknown_fields(*schema.root, object, "", unknown);
  std::vector<Cause> causes;
  if (!unknown.empty()) {
    // Strict decoding fails the request before any validation runs.
    for (const auto& path : unknown) {
      causes.push_back(
          {path, std::string(cause_type::kUnknownField), "unknown field " + go_quote(path)});
    }
    return rejected(std::move(causes));
  }
  validate_structure(*schema.root, object, "", causes);
  validate_list_types(*schema.root, object, "", causes);
  if (!schema.has_validation_rules) {
    // No rules to run, so none left unchecked.
  } else if (std::any_of(causes.begin(), causes.end(), is_blocking)) {
    causes.push_back(rules_not_checked_cause());
  } else {
    validate_rules(*schema.root, object, old_object, "", causes);
  }
  if (causes.empty()) return {};
  return rejected(std::move(causes));
}

// Decode-time normalisation of a copy about to be validated. ObjectMeta always exists once
// decoded, so an absent or null `metadata` is validated as an empty one (name required).
void normalise(const CrdSchema& schema, json::value& object) {
  apply_defaults(*schema.root, object);
  if (const auto* meta = jsonkit::value_at(object, {"metadata"});
      meta == nullptr || meta->is_null())
    object.get_object()["metadata"] = json::object();
}

ValidationResult update(const json::value& old_object, const json::value& new_object,
                        const SchemaRegistry& registry, bool keep_old_status) {
  std::vector<Cause> causes;
  const CrdSchema* schema = resolve(new_object, registry, causes);
  if (schema == nullptr) return rejected(std::move(causes));
  const auto* old_fields = old_object.if_object();
  if (old_fields == nullptr ||
      jsonkit::view_of(old_fields, "apiVersion") != schema->api_version() ||
      jsonkit::view_of(old_fields, "kind") != schema->kind) {
    causes.push_back({"kind", std::string(cause_type::kInvalid),
                      "Invalid value: " + go_quote(schema->kind) + ": the old object is not a " +
                          schema->kind + " of " + schema->api_version() +
                          "; kind and apiVersion cannot change"});
    return rejected(std::move(causes));
  }
  json::value old_copy = old_object;
  json::value new_copy = new_object;
  if (keep_old_status && schema->status_subresource) {
    // The main resource endpoint ignores status changes.
    auto& fields = new_copy.get_object();
    if (const auto* status = old_fields->if_contains("status")) {
      fields["status"] = *status;
    } else {
      fields.erase("status");
    }
  }
  normalise(*schema, old_copy);
  normalise(*schema, new_copy);
  return run(*schema, new_copy, &old_copy);
}

}  // namespace

const SchemaRegistry& SchemaRegistry::builtin() {
  static const SchemaRegistry registry = [] {
    SchemaRegistry loaded;
    for (const auto& file : embedded_crd_files()) {
      std::vector<json::value> documents;
      try {
        documents = jsonkit::parse_yaml_documents(file.content);
      } catch (const jsonkit::ParseError& error) {
        throw std::invalid_argument(std::string(file.name) + ": " + error.what());
      }
      for (const auto& document : documents) {
        try {
          loaded.add_crd(document);
        } catch (const std::invalid_argument& error) {
          throw std::invalid_argument(std::string(file.name) + ": " + error.what());
        }
      }
    }
    return loaded;
  }();
  return registry;
}

void SchemaRegistry::add_crd(const json::value& crd) {
  std::vector<CrdSchema> loaded = load_crd_schemas(crd);
  if (loaded.empty()) return;
  const std::string& name = loaded.front().crd_name;
  for (const auto& schema : loaded) {
    for (const auto& existing : schemas_) {
      if (existing.crd_name != name && existing.api_version() == schema.api_version() &&
          existing.kind == schema.kind) {
        throw std::invalid_argument("CRD " + name + ": " + schema.api_version() + ", Kind=" +
                                    schema.kind + " is already served by CRD " + existing.crd_name);
      }
    }
  }
  std::erase_if(schemas_, [&](const CrdSchema& existing) { return existing.crd_name == name; });
  for (auto& schema : loaded) schemas_.push_back(std::move(schema));
}

const CrdSchema* SchemaRegistry::find(std::string_view api_version, std::string_view kind) const {
  for (const auto& schema : schemas_) {
    if (schema.kind == kind && schema.api_version() == api_version) return &schema;
  }
  return nullptr;
}

std::vector<std::string> SchemaRegistry::kinds() const {
  std::set<std::string> kinds;
  for (const auto& schema : schemas_) kinds.insert(schema.kind);
  return {kinds.begin(), kinds.end()};
}

ValidationResult validate_create(const json::value& object, const SchemaRegistry& registry) {
  std::vector<Cause> causes;
  const CrdSchema* schema = resolve(object, registry, causes);
  if (schema == nullptr) return rejected(std::move(causes));
  json::value copy = object;
  // With a status subresource, status cannot be set on create (kube drops it).
  if (schema->status_subresource) copy.get_object().erase("status");
  normalise(*schema, copy);
  return run(*schema, copy, nullptr);
}

ValidationResult validate_update(const json::value& old_object, const json::value& new_object,
                                 const SchemaRegistry& registry) {
  return update(old_object, new_object, registry, true);
}

ValidationResult validate_status_update(const json::value& old_object,
                                        const json::value& new_object,
                                        const SchemaRegistry& registry) {
  if (!old_object.is_object() || !new_object.is_object())
    return update(old_object, new_object, registry, false);
  json::value merged = old_object;
  if (const auto* status = new_object.get_object().if_contains("status")) {
    merged.get_object()["status"] = *status;
  } else {
    merged.get_object().erase("status");
  }
  return update(old_object, merged, registry, false);
}

bool apply_defaults(json::value& object, const SchemaRegistry& registry) {
  std::vector<Cause> ignored;
  const CrdSchema* schema = resolve(object, registry, ignored);
  if (schema == nullptr) return false;
  apply_defaults(*schema->root, object);
  return true;
}

std::vector<std::string> prune_unknown_fields(json::value& object, const SchemaRegistry& registry) {
  std::vector<Cause> ignored;
  const CrdSchema* schema = resolve(object, registry, ignored);
  std::vector<std::string> pruned;
  if (schema == nullptr) return pruned;
  find_unknown_fields(*schema->root, object, "", pruned);
  if (!pruned.empty()) prune_unknown_fields(*schema->root, object);
  return pruned;
}

json::value causes_to_json(const ValidationResult& result) {
  json::array causes;
  for (const auto& cause : result.causes) {
    causes.push_back(
        json::object{{"type", cause.type}, {"field", cause.field}, {"message", cause.message}});
  }
  return json::object{{"accepted", result.accepted}, {"causes", std::move(causes)}};
}

}  // namespace nvcre::api
