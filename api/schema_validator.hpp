#pragma once
// Validation engine over api/schema.hpp, mirroring kube-apiserver's handling of custom resources
// (apiextensions-apiserver with kube-openapi, Kubernetes 1.33/1.34 message formats). Each pass
// appends Kubernetes StatusCauses; the facade (api/validation.hpp) sequences them the way the
// API server does.
#include "api/schema.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// One metav1.StatusCause of an Invalid response.
struct Cause {
  std::string field;    // "spec.categories[0].options.maxBytes"; "<nil>" when kube has no path
  std::string type;     // StatusCause reason, e.g. "FieldValueInvalid"
  std::string message;  // "Invalid value: \"16X\": spec...maxBytes in body should match '...'"

  friend bool operator==(const Cause&, const Cause&) = default;
};

namespace cause_type {
inline constexpr std::string_view kRequired = "FieldValueRequired";
inline constexpr std::string_view kInvalid = "FieldValueInvalid";
inline constexpr std::string_view kTypeInvalid = "FieldValueTypeInvalid";
inline constexpr std::string_view kNotSupported = "FieldValueNotSupported";
inline constexpr std::string_view kTooLong = "FieldValueTooLong";
inline constexpr std::string_view kTooMany = "FieldValueTooMany";
inline constexpr std::string_view kDuplicate = "FieldValueDuplicate";
inline constexpr std::string_view kForbidden = "FieldValueForbidden";
inline constexpr std::string_view kUnknownField = "UnknownField";
}  // namespace cause_type

// Sorted by field, then message, then type (CEL reports sibling failures in no fixed order).
void sort_causes(std::vector<Cause>& causes);

// Schema (OpenAPI) validation of `value` at `path` ("" for the resource root): types, enum,
// lengths, patterns, bounds, item/property counts, required, plus the ObjectMeta and
// embedded-resource checks the API server adds. Like kube-openapi, a failed min/maxProperties
// stops validation of that object's contents, and a string reports only its first failing
// check among maxLength, minLength, pattern.
void validate_structure(const SchemaNode& node, const boost::json::value& value,
                        const std::string& path, std::vector<Cause>& causes);

// ObjectMeta semantics (ValidateObjectMeta): name/generateName required at the resource root and
// DNS-1123 subdomains, namespace a DNS-1123 label, label keys/values and annotation keys. Called by
// validate_structure for the nodes marked object_meta; exposed for tests.
void validate_object_meta(ObjectMetaKind kind, const boost::json::object& meta,
                          const std::string& path, std::vector<Cause>& causes);

// x-kubernetes-list-type set/map: duplicate items (FieldValueDuplicate at the later index).
void validate_list_types(const SchemaNode& node, const boost::json::value& value,
                         const std::string& path, std::vector<Cause>& causes);

// Paths of fields the API server would prune ("spec.foo", "spec.list[0].foo", "spec.map.key.foo").
// kubectl uses strict field validation, so each one fails the request.
void find_unknown_fields(const SchemaNode& node, const boost::json::value& value,
                         const std::string& path, std::vector<std::string>& unknown);

// Drops what find_unknown_fields reports, in place: the API server prunes unknown fields while it
// decodes a request whose field validation is Ignore or Warn.
void prune_unknown_fields(const SchemaNode& node, boost::json::value& value);

// x-kubernetes-validations. `old_value` is the correlated old object on update (null on create):
// transition rules run only where it exists, correlated through object properties, map values
// and x-kubernetes-list-type=map items (never through other lists).
void validate_rules(const SchemaNode& node, const boost::json::value& value,
                    const boost::json::value* old_value, const std::string& path,
                    std::vector<Cause>& causes);

// Decode-time normalisation as in kube: fills `default`s of absent fields (and of null fields that
// are not nullable), then drops remaining nulls of non-nullable fields. Recurses into every value
// the schema describes, including freshly defaulted ones.
void apply_defaults(const SchemaNode& node, boost::json::value& value);

// Errors after which kube does not run CEL rules at all (it adds a field-less cause instead).
bool is_blocking(const Cause& cause);
Cause rules_not_checked_cause();

// Field paths as kube-openapi writes them: "spec.categories", "spec.categories[0]".
std::string child_path(const std::string& base, std::string_view name);
std::string index_path(const std::string& base, std::size_t index);

// Go-style renderings used in messages: strconv.Quote, fmt %v of JSON scalars, JSON type names.
std::string go_quote(std::string_view text);
std::string go_value(const boost::json::value& value);
std::string go_float(double value);
// Like json_type_name (codec.hpp), but an integral double counts as "integer", as in kube-openapi.
std::string schema_type_name(const boost::json::value& value);

}  // namespace nvcre::api
