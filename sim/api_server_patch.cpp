// PATCH (JSON merge, strategic merge as merge, JSON patch, server-side apply as merge) and
// admission: CRD defaults + validation for custom resources, registration of CRDs.
#include "sim/api_server.hpp"
#include "jsonkit/merge_patch.hpp"
#include "sim/namespace_admission.hpp"

#include "jsonkit/yaml.hpp"
#include "jsonkit/named_merge.hpp"
#include "jsonkit/json_patch.hpp"
#include "jsonkit/parse.hpp"

#include <boost/json.hpp>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

// Strategic-merge directives ($patch, $setElementOrder/..., $retainKeys, ...) carry no data for
// a plain merge; they are dropped.
json::value strip_directives(const json::value& value) {
  if (value.is_object()) {
    json::object out;
    for (const auto& [key, item] : value.as_object())
      if (!key.starts_with("$")) out[key] = strip_directives(item);
    return out;
  }
  if (value.is_array()) {
    json::array out;
    for (const auto& item : value.as_array()) out.push_back(strip_directives(item));
    return out;
  }
  return value;
}

std::string media_type(const std::string& content_type) {
  std::string out = content_type.substr(0, content_type.find(';'));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string now_string(const Store& store) { return store.now_rfc3339(); }

}  // namespace

json::value ApiServer::patch(const HttpRequest& request, const ResourceInfo& info,
                             const std::string& ns, const std::string& name, bool status,
                             bool dry_run, const rbac::UserInfo& user) {
  const std::string type = media_type(request.content_type);
  json::value body;
  try {
    if (type == "application/apply-patch+yaml") {
      body = jsonkit::parse_yaml(request.body);
    } else {
      body = jsonkit::parse_json(request.body);
    }
  } catch (const std::exception& e) {
    throw bad_request(std::string("error decoding patch: ") + e.what());
  }
  auto field_validation =
      request.query.contains("fieldValidation") ? request.query.at("fieldValidation") : "";
  const auto kind = status ? Store::UpdateKind::Status : Store::UpdateKind::Main;
  for (int attempt = 0;; ++attempt) {
    auto current = store_.find(info.type, ns, name);
    if (!current) {
      if (type == "application/apply-patch+yaml" && !status) {
        ensure_namespace(info, ns);
        check_owner_references(user, info, ns, nullptr, body);
        auto created =
            store_.create(info.type, ns, body, admission(info, false, field_validation), dry_run);
        if (!dry_run && info.type.resource == "customresourcedefinitions") after_crd_write(created);
        return created;
      }
      throw not_found(info.type.group, info.type.resource, name);
    }
    json::value patched;
    try {
      if (type == "application/json-patch+json") {
        if (!body.is_array())
          throw bad_request("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        patched = jsonkit::apply_json_patch(*current, body);
      } else if (type == "application/merge-patch+json") {
        patched = jsonkit::merge_patch(*current, body);
      } else if (type == "application/strategic-merge-patch+json" ||
                 type == "application/apply-patch+yaml") {
        patched = jsonkit::merge_patch(*current, strip_directives(body));
      } else {
        throw ApiError(
            415, "UnsupportedMediaType",
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/apply-patch+yaml, application/strategic-merge-patch+json");
      }
    } catch (const jsonkit::JsonPatchTooLarge& e) {
      throw ApiError(413, "RequestEntityTooLarge", e.what());
    } catch (const std::invalid_argument& e) {
      throw ApiError(
          422, "Invalid",
          std::string("the server rejected our request due to an error in our request: ") +
              e.what());
    }
    if (!patched.is_object()) throw bad_request("the patch did not produce a JSON object");
    const std::string current_rv = meta_string(*current, "resourceVersion");
    if (meta_string(patched, "resourceVersion").empty()) {
      auto& meta = patched.as_object()["metadata"];
      if (!meta.is_object()) meta = json::object{};
      meta.as_object()["resourceVersion"] = current_rv;
    }
    const bool explicit_rv = meta_string(patched, "resourceVersion") != current_rv;
    if (!status) check_owner_references(user, info, ns, &*current, patched);
    try {
      auto updated = store_.update(info.type, ns, name, std::move(patched), kind,
                                   admission(info, status, field_validation), dry_run);
      if (!dry_run && info.type.resource == "customresourcedefinitions") after_crd_write(updated);
      return updated;
    } catch (const ApiError& error) {
      if (error.code != 409 || error.reason != "Conflict" || explicit_rv || attempt >= 5) throw;
    }
  }
}

Admit ApiServer::admission(const ResourceInfo& info, bool status,
                           const std::string& field_validation) {
  if (info.type.group.empty() && info.type.resource == "namespaces" && !status)
    return admit_namespace;
  if (info.type.group == "apiextensions.k8s.io" &&
      info.type.resource == "customresourcedefinitions") {
    if (status) return {};
    return [this](const json::value* old, json::value& crd) {
      auto infos = ResourceRegistry::from_crd(crd);
      const std::string name = meta_string(crd, "name");
      for (const auto& candidate : infos)
        for (const auto& existing : registry_.all())
          if (existing.crd_name != name && existing.type.group == candidate.type.group &&
              existing.type.kind == candidate.type.kind)
            throw invalid(
                "apiextensions.k8s.io", "CustomResourceDefinition", name,
                {{"FieldValueInvalid",
                  "Invalid value: \"" + candidate.type.kind + "\": kind is already served by " +
                      (existing.crd_name.empty() ? "a built-in resource" : existing.crd_name),
                  "spec.names.kind"}});
      api::SchemaRegistry trial = schemas_;
      try {
        trial.add_crd(crd);
      } catch (const std::invalid_argument& e) {
        throw invalid(
            "apiextensions.k8s.io", "CustomResourceDefinition", name,
            {{"FieldValueInvalid", std::string("Invalid value: ") + e.what(), "spec.versions"}});
      }
      if (!old) {
        const json::value& spec = crd.at("spec");
        json::array stored;
        for (const auto& v : spec.at("versions").as_array())
          if (const auto* storage = v.as_object().if_contains("storage");
              storage && storage->is_bool() && storage->as_bool())
            stored.push_back(v.at("name"));
        const std::string now = now_string(store_);
        crd.as_object()["status"] = json::object{
            {"acceptedNames", spec.at("names")},
            {"conditions",
             json::array{json::object{{"type", "NamesAccepted"},
                                      {"status", "True"},
                                      {"lastTransitionTime", now},
                                      {"reason", "NoConflicts"},
                                      {"message", "no conflicts found"}},
                         json::object{{"type", "Established"},
                                      {"status", "True"},
                                      {"lastTransitionTime", now},
                                      {"reason", "InitialNamesAccepted"},
                                      {"message", "the initial names have been accepted"}}}},
            {"storedVersions", std::move(stored)}};
      }
    };
  }
  if (info.crd_name.empty()) return {};
  const ResourceType type = info.type;
  return [this, type, status, field_validation](const json::value* old, json::value& object) {
    if (!schemas_.find(type.api_version(), type.kind)) return;
    // Strict: kube-apiserver meets unknown fields while decoding, before any validation, so they
    // are a 400 of their own whatever else is wrong with the object. Ignore and Warn prune them
    // there instead, and the pruned object is validated like any other.
    const bool strict = field_validation != "Ignore" && field_validation != "Warn";
    if (!strict) api::prune_unknown_fields(object, schemas_);
    api::apply_defaults(object, schemas_);
    api::ValidationResult result = !old     ? api::validate_create(object, schemas_)
                                   : status ? api::validate_status_update(*old, object, schemas_)
                                            : api::validate_update(*old, object, schemas_);
    std::vector<StatusCause> causes, unknown;
    for (const auto& cause : result.causes) {
      if (cause.type == api::cause_type::kUnknownField) {
        unknown.push_back({cause.type, cause.message, cause.field});
      } else {
        causes.push_back({cause.type, cause.message, cause.field});
      }
    }
    if (!unknown.empty()) {
      std::string message = type.kind + " in version \"" + type.version +
                            "\" cannot be handled as a " + type.kind + ": strict decoding error: ";
      for (std::size_t i = 0; i < unknown.size(); ++i)
        message += (i ? ", " : "") + unknown[i].message;
      throw bad_request(message);
    }
    if (!causes.empty())
      throw invalid(type.group, type.kind, meta_string(object, "name"), std::move(causes));
  };
}

void ApiServer::after_crd_write(const json::value& crd) {
  auto infos = ResourceRegistry::from_crd(crd);
  schemas_.add_crd(crd);
  registry_.add(std::move(infos));
}

void ApiServer::after_crd_delete(const json::value& crd) {
  const std::string name = meta_string(crd, "name");
  for (const auto& info : registry_.all())
    if (info.crd_name == name) store_.remove_all(info.type);
  registry_.remove_crd(name);
}

}  // namespace nvcre::sim
