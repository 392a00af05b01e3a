#pragma once
// API-server-equivalent admission validation of nvcre.nvidia.com objects, driven by the CRD YAML
// (deploy/crds, embedded). What a create or update through kube-apiserver with kubectl's strict
// field validation would answer, as StatusCauses:
//   1. unknown fields (strict decoding) fail the request alone;
//   2. otherwise schema validation, ObjectMeta checks and list-type invariants;
//   3. x-kubernetes-validations rules, unless step 2 found a blocking error (wrong type, required,
//      enum, too long, too many), in which case kube adds one field-less cause instead.
// Before validating, a copy of each object is normalised as the API server does on decode
// (defaults, non-nullable nulls dropped) and, for kinds with a status subresource, its status is
// dropped on create / kept from the old object on update.
#include "api/schema.hpp"
#include "api/schema_validator.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace nvcre::api {

// The kube-apiserver release whose admission answers this validator reproduces, word for word (for
// instance how a failed CEL rule shows the rejected value). kube-sim reports it at /version.
inline constexpr std::string_view kImitatedKubernetesMajor = "1";
inline constexpr std::string_view kImitatedKubernetesMinor = "35";
inline constexpr std::string_view kImitatedKubernetesVersion = "v1.35.0";

struct ValidationResult {
  bool accepted = true;
  std::vector<Cause> causes;  // sorted by field, message, type; empty when accepted
};

class SchemaRegistry {
 public:
  SchemaRegistry() = default;

  // Our embedded CRDs, parsed once (thread-safe). Throws std::invalid_argument if one of them
  // does not load, which a unit test guards against.
  static const SchemaRegistry& builtin();

  // Adds (or replaces, by CRD name) every served version of a CRD. Throws std::invalid_argument
  // naming the CRD, the schema path and the reason (e.g. a rule without an implementation), or
  // when another CRD already serves the same apiVersion and kind.
  void add_crd(const boost::json::value& crd);

  const CrdSchema* find(std::string_view api_version, std::string_view kind) const;
  std::vector<std::string> kinds() const;  // sorted, distinct
  const std::vector<CrdSchema>& schemas() const { return schemas_; }

 private:
  std::vector<CrdSchema> schemas_;
};

ValidationResult validate_create(const boost::json::value& object,
                                 const SchemaRegistry& registry = SchemaRegistry::builtin());

// A main-resource update (PUT/PATCH result): transition rules compare with `old_object`.
ValidationResult validate_update(const boost::json::value& old_object,
                                 const boost::json::value& new_object,
                                 const SchemaRegistry& registry = SchemaRegistry::builtin());

// An update through the status subresource: only new_object's status is taken, the rest comes
// from old_object, and the merged object is validated as an update.
ValidationResult validate_status_update(const boost::json::value& old_object,
                                        const boost::json::value& new_object,
                                        const SchemaRegistry& registry = SchemaRegistry::builtin());

// Applies the CRD defaults (and drops non-nullable nulls) in place, as the API server does when it
// decodes a request or reads from storage. Returns false, leaving the object untouched, when its
// apiVersion/kind is not served by `registry`.
bool apply_defaults(boost::json::value& object,
                    const SchemaRegistry& registry = SchemaRegistry::builtin());

// Removes the fields the CRD schema does not know, in place, as the API server does when it
// decodes a request with fieldValidation Ignore or Warn (Strict refuses them instead). Returns the
// pruned paths; none, leaving the object untouched, when its apiVersion/kind is not served.
std::vector<std::string> prune_unknown_fields(
    boost::json::value& object, const SchemaRegistry& registry = SchemaRegistry::builtin());

// {"accepted": bool, "causes": [{"type", "field", "message"}]}
boost::json::value causes_to_json(const ValidationResult& result);

}  // namespace nvcre::api
