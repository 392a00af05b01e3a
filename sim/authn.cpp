#include "sim/authn.hpp"

#include "jsonkit/paths.hpp"
#include "k8s/rfc3339.hpp"

#include <boost/json.hpp>

#include <random>
#include <stdexcept>

namespace nvcre::sim::auth {
namespace {

namespace json = boost::json;
using jsonkit::string_at;

std::string random_token() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;
  std::string token = "kube-sim.";
  for (int i = 0; i < 40; ++i) token += kHex[random() % 16];
  return token;
}

json::object user_json(const rbac::UserInfo& user) {
  json::array groups;
  for (const auto& group : user.groups) groups.emplace_back(group);
  return {{"username", user.name}, {"groups", std::move(groups)}};
}

// The review object as answered: the request's apiVersion, kind and spec with a status.
json::value answered(const json::value& review, std::string_view kind, json::object status) {
  json::object out;
  out["apiVersion"] = string_at(review, {"apiVersion"}).empty()
                          ? json::value(kind == "TokenReview" ? "authentication.k8s.io/v1"
                                                              : "authorization.k8s.io/v1")
                          : json::value(string_at(review, {"apiVersion"}));
  out["kind"] = kind;
  out["metadata"] = json::object{{"creationTimestamp", nullptr}};
  const json::value* spec = jsonkit::value_at(review, {"spec"});
  out["spec"] = spec != nullptr ? *spec : json::value(json::object());
  out["status"] = std::move(status);
  return out;
}

rbac::RequestAttributes attributes(const json::value& spec) {
  rbac::RequestAttributes request;
  if (const json::value* resource = jsonkit::value_at(spec, {"resourceAttributes"})) {
    request.verb = string_at(*resource, {"verb"});
    request.api_group = string_at(*resource, {"group"});
    request.resource = string_at(*resource, {"resource"});
    request.subresource = string_at(*resource, {"subresource"});
    request.ns = string_at(*resource, {"namespace"});
    request.name = string_at(*resource, {"name"});
    return request;
  }
  if (const json::value* path = jsonkit::value_at(spec, {"nonResourceAttributes"})) {
    request.resource_request = false;
    request.verb = string_at(*path, {"verb"});
    request.path = string_at(*path, {"path"});
    return request;
  }
  throw std::invalid_argument(
      "spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or "
      "resourceAttributes must be specified");
}

json::object access_status(const rbac::RbacObjects& objects, const rbac::UserInfo& user,
                           const json::value& review) {
  const json::value* spec = jsonkit::value_at(review, {"spec"});
  const rbac::Decision decision =
      rbac::authorize(objects, user, attributes(spec != nullptr ? *spec : json::value()));
  json::object status{{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  return status;
}

}  // namespace

void TokenRegistry::set_admin_token(std::string token) {
  std::lock_guard lock(mutex_);
  admin_token_ = std::move(token);
}

std::string TokenRegistry::issue(const std::string& ns, const std::string& name) {
  std::string token = random_token();
  std::lock_guard lock(mutex_);
  issued_.emplace(token, rbac::service_account_user(ns, name));
  return token;
}

std::optional<rbac::UserInfo> TokenRegistry::authenticate(std::string_view token) const {
  std::lock_guard lock(mutex_);
  if (!admin_token_.empty() && token == admin_token_)
    return rbac::UserInfo{std::string(kAdminUser), {"system:masters", "system:authenticated"}};
  if (auto found = issued_.find(token); found != issued_.end()) return found->second;
  return std::nullopt;
}

json::value answer_token_request(TokenRegistry& tokens, const std::string& ns,
                                 const std::string& service_account, const json::value& request,
                                 std::chrono::system_clock::time_point now) {
  std::int64_t seconds = 3600;
  if (const json::value* asked = jsonkit::value_at(request, {"spec", "expirationSeconds"});
      asked != nullptr && asked->is_int64() && asked->as_int64() > 0)
    seconds = asked->as_int64();
  json::object out;
  out["apiVersion"] = "authentication.k8s.io/v1";
  out["kind"] = "TokenRequest";
  out["metadata"] = json::object{{"name", service_account}, {"namespace", ns}};
  const json::value* spec = jsonkit::value_at(request, {"spec"});
  json::object answered_spec =
      spec != nullptr && spec->is_object() ? spec->as_object() : json::object();
  answered_spec["expirationSeconds"] = seconds;
  out["spec"] = std::move(answered_spec);
  out["status"] = json::object{
      {"token", tokens.issue(ns, service_account)},
      {"expirationTimestamp", k8s::format_rfc3339(now + std::chrono::seconds(seconds))}};
  return out;
}

json::value review_token(const TokenRegistry& tokens, const json::value& review) {
  const auto user = tokens.authenticate(string_at(review, {"spec", "token"}));
  if (!user) {
    return answered(
        review, "TokenReview",
        {{"authenticated", false}, {"user", json::object()}, {"error", "invalid bearer token"}});
  }
  return answered(review, "TokenReview", {{"authenticated", true}, {"user", user_json(*user)}});
}

json::value review_access(const rbac::RbacObjects& objects, const json::value& review) {
  rbac::UserInfo user{string_at(review, {"spec", "user"}), {}};
  if (const json::value* groups = jsonkit::value_at(review, {"spec", "groups"});
      groups != nullptr && groups->is_array()) {
    for (const auto& group : groups->as_array())
      if (group.is_string()) user.groups.emplace_back(group.as_string());
  }
  return answered(review, "SubjectAccessReview", access_status(objects, user, review));
}

json::value review_self_access(const rbac::RbacObjects& objects, const rbac::UserInfo& requester,
                               const json::value& review) {
  return answered(review, "SelfSubjectAccessReview", access_status(objects, requester, review));
}

}  // namespace nvcre::sim::auth
