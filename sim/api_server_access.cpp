// Access control (`--authorization rbac`): authentication by bearer token, RBAC authorization of
// every request before it is served, and the endpoints other components ask: TokenRequest
// (POST serviceaccounts/<name>/token), TokenReview, SubjectAccessReview and
// SelfSubjectAccessReview. With access control off every request is served and the reviews
// answer as the open server behaves: every access allowed.
#include "k8s/resource_mapper.hpp"
#include "sim/access.hpp"
#include "sim/api_server.hpp"
#include "sim/owner_reference_admission.hpp"
#include "sim/protobuf_body.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace nvcre::sim {

namespace json = boost::json;

namespace {

HttpResponse json_response(const json::value& body, int status) {
  return HttpResponse{status, "application/json", json::serialize(body), {}, {}};
}

}  // namespace

rbac::RbacObjects ApiServer::rbac_objects() const {
  auto all = [this](const char* resource) {
    return store_.list(registry_.find("rbac.authorization.k8s.io", "v1", resource)->type, "").items;
  };
  return {all("roles"), all("clusterroles"), all("rolebindings"), all("clusterrolebindings")};
}

std::variant<rbac::UserInfo, HttpResponse> ApiServer::admit_request(const HttpRequest& request) {
  if (!options_.access.rbac) return access::anonymous_user();
  std::optional<rbac::UserInfo> user;
  if (!request.bearer_token.empty()) {
    user = tokens_.authenticate(request.bearer_token);
  } else if (access::anonymous_path(request.path)) {
    user = access::anonymous_user();
  }
  if (!user) {
    log_.record_unauthenticated();
    return json_response(access::unauthorized_status(), 401);
  }
  if (!request.impersonate_user.empty() || !request.impersonate_groups.empty() ||
      !request.impersonate_uid.empty()) {
    if (request.impersonate_user.empty())
      return json_response(
          ApiError(400, "BadRequest",
                   "requested uid or group impersonation without impersonating a user")
              .to_status(),
          400);
    for (const auto& check : access::impersonation_checks(
             request.impersonate_user, request.impersonate_groups, request.impersonate_uid)) {
      const rbac::Decision allowed = rbac::authorize(rbac_objects(), *user, check);
      if (!allowed.allowed) {
        log_.record_denied(user->name);
        return json_response(access::forbidden_status(*user, check, allowed.reason), 403);
      }
    }
    user = access::impersonated_user(request.impersonate_user, request.impersonate_groups);
  }
  const rbac::RequestAttributes attributes =
      access::request_attributes(request.method, request.path, request.query);
  const rbac::Decision decision = rbac::authorize(rbac_objects(), *user, attributes);
  if (decision.allowed) return *user;
  log_.record_denied(user->name);
  return json_response(access::forbidden_status(*user, attributes, decision.reason), 403);
}

void ApiServer::check_owner_references(const rbac::UserInfo& user, const ResourceInfo& info,
                                       const std::string& ns, const json::value* old,
                                       const json::value& object) {
  if (!options_.access.rbac || !owner_references::changed(old, object)) return;
  const std::string name = meta_string(object, "name");
  auto refuse = [&](const std::string& why) {
    log_.record_denied(user.name);
    const std::string qualified =
        info.type.group.empty() ? info.type.resource : info.type.resource + "." + info.type.group;
    ApiError error(403, "Forbidden",
                   qualified + (name.empty() ? "" : " \"" + name + "\"") + " is forbidden: " + why);
    error.name = name;
    error.group = info.type.group;
    error.kind = info.type.resource;
    throw error;
  };
  const rbac::RbacObjects policy = rbac_objects();
  // Creating a thing implies the power not to create it: only a change to an existing object's
  // references needs delete on that object.
  if (old != nullptr &&
      !rbac::authorize(policy, user,
                       {"delete", true, info.type.group, info.type.resource, "", ns, name, ""})
           .allowed)
    refuse(owner_references::cannot_delete_message());
  const auto blocking = owner_references::newly_blocking(old, object);
  if (blocking.empty()) return;
  // One check first, as the plugin makes it: may the writer finalize anything at all?
  if (rbac::authorize(policy, user, {"update", true, "*", "*", "finalizers", "", "", ""}).allowed)
    return;
  for (const auto& ref : blocking) {
    const auto [group, version] = k8s::split_api_version(ref.api_version);
    const ResourceInfo* owner = registry_.find_kind(group, version, ref.kind);
    if (owner == nullptr) refuse(owner_references::unmapped_owner_message(ref));
    const rbac::RequestAttributes finalize{
        "update", true, group, owner->type.resource, "finalizers", owner->type.namespaced ? ns : "",
        ref.name, ""};
    if (!rbac::authorize(policy, user, finalize).allowed)
      refuse(owner_references::cannot_set_finalizers_message());
  }
}

HttpResponse ApiServer::review(const HttpRequest& request, const ResourceInfo& info,
                               const rbac::UserInfo& user) {
  if (request.method != "POST")
    throw method_not_allowed("the server does not allow this method on the requested resource");
  const json::value body = decode_request_body(request.content_type, request.body);
  const std::string& resource = info.type.resource;
  if (resource == "tokenreviews") return json_response(auth::review_token(tokens_, body), 201);
  json::value answer;
  try {
    if (options_.access.rbac) {
      answer = resource == "subjectaccessreviews"
                   ? auth::review_access(rbac_objects(), body)
                   : auth::review_self_access(rbac_objects(), user, body);
    } else {
      // The open server allows everything: evaluate against a policy that says so.
      const rbac::UserInfo anyone{"", {"system:masters"}};
      answer = auth::review_self_access({}, anyone, body);
      answer.as_object()["kind"] = info.type.kind;
    }
  } catch (const std::invalid_argument& e) {
    throw ApiError(422, "Invalid",
                   info.type.kind + "." + info.type.group + " \"\" is invalid: " + e.what());
  }
  return json_response(answer, 201);
}

HttpResponse ApiServer::token_request(const HttpRequest& request, const ResourceInfo& info,
                                      const std::string& ns, const std::string& name) {
  if (request.method != "POST")
    throw method_not_allowed("the server does not allow this method on the requested resource");
  store_.get(info.type, ns, name);  // 404 for a ServiceAccount that does not exist
  const json::value body = decode_request_body(request.content_type, request.body);
  return json_response(
      auth::answer_token_request(tokens_, ns, name, body, std::chrono::system_clock::now()), 201);
}

}  // namespace nvcre::sim
