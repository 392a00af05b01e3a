#include "sim/access.hpp"

#include "sim/api_error.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

namespace nvcre::sim::access {
namespace {

namespace json = boost::json;

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  for (std::size_t start = 0; start < path.size();) {
    std::size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string resource_verb(const std::string& method) {
  if (method == "POST") return "create";
  if (method == "GET" || method == "HEAD") return "get";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return "delete";
  return lower(method);
}

// The name an exact `metadata.name=<n>` (or `==`) field selector asks for; "" otherwise.
std::string selected_name(const QueryParams& query) {
  const auto it = query.find("fieldSelector");
  if (it == query.end()) return {};
  const std::string& selector = it->second;
  if (selector.find(',') != std::string::npos) return {};
  for (const std::string_view prefix : {"metadata.name==", "metadata.name="}) {
    if (selector.starts_with(prefix)) {
      const std::string name = selector.substr(prefix.size());
      return name.find('/') == std::string::npos ? name : std::string();
    }
  }
  return {};
}

json::value cluster_role(const std::string& name, json::array rules) {
  return json::object{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRole"},
      {"metadata",
       json::object{{"name", name},
                    {"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
      {"rules", std::move(rules)}};
}

json::value binding(const std::string& name, const std::vector<std::string>& groups) {
  json::array subjects;
  for (const auto& group : groups)
    subjects.push_back(json::object{
        {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", group}});
  return json::object{
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", "ClusterRoleBinding"},
      {"metadata",
       json::object{{"name", name},
                    {"labels", json::object{{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
      {"roleRef",
       json::object{
           {"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
      {"subjects", std::move(subjects)}};
}

}  // namespace

rbac::RequestAttributes request_attributes(const std::string& method, const std::string& path,
                                           const QueryParams& query) {
  rbac::RequestAttributes out;
  out.verb = lower(method);
  out.path = path;
  out.resource_request = false;
  const auto parts = split_path(path);
  std::size_t at = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    at = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    out.api_group = parts[1];
    at = 3;
  } else {
    out.api_group.clear();
    return out;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  out.resource_request = true;
  out.path.clear();
  out.verb = resource_verb(method);
  if (rest.front() == "watch") {  // the legacy /watch/ prefix
    out.verb = "watch";
    rest.erase(rest.begin());
  }
  if (rest.size() > 1 && rest[0] == "namespaces") {
    out.ns = rest[1];
    // /namespaces/<ns>/status and /finalize are subresources of the Namespace itself.
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
      rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() >= 3) out.subresource = rest[2];
  if (rest.size() >= 2) out.name = rest[1];
  if (!rest.empty()) out.resource = rest[0];
  if (out.name.empty() && out.verb == "get") {
    out.verb = query_flag(query, "watch") ? "watch" : "list";
    out.name = selected_name(query);
  }
  if (out.name.empty() && out.verb == "delete") out.verb = "deletecollection";
  return out;
}

bool anonymous_path(const std::string& path) {
  for (const char* open : {"/healthz", "/livez", "/readyz", "/version"})
    if (path == open || path == std::string(open) + "/") return true;
  return false;
}

rbac::UserInfo anonymous_user() { return {"system:anonymous", {"system:unauthenticated"}}; }

std::vector<json::value> bootstrap_cluster_roles() {
  auto urls = [](std::initializer_list<const char*> paths) {
    json::array list;
    for (const char* p : paths) list.emplace_back(p);
    return json::array{
        json::object{{"nonResourceURLs", std::move(list)}, {"verbs", json::array{"get"}}}};
  };
  return {
      cluster_role("system:discovery",
                   urls({"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                         "/openapi/*", "/readyz", "/version", "/version/"})),
      cluster_role("system:basic-user",
                   json::array{json::object{{"apiGroups", json::array{"authorization.k8s.io"}},
                                            {"resources", json::array{"selfsubjectaccessreviews",
                                                                      "selfsubjectrulesreviews"}},
                                            {"verbs", json::array{"create"}}}}),
      cluster_role("system:public-info-viewer",
                   urls({"/healthz", "/livez", "/readyz", "/version", "/version/"})),
  };
}

std::vector<json::value> bootstrap_cluster_role_bindings() {
  return {binding("system:discovery", {"system:authenticated"}),
          binding("system:basic-user", {"system:authenticated"}),
          binding("system:public-info-viewer", {"system:authenticated", "system:unauthenticated"})};
}

json::value unauthorized_status() {
  return ApiError(401, "Unauthorized", "Unauthorized").to_status();
}

std::vector<rbac::RequestAttributes> impersonation_checks(const std::string& user,
                                                          const std::vector<std::string>& groups,
                                                          const std::string& uid) {
  std::vector<rbac::RequestAttributes> checks;
  if (const auto account = rbac::service_account_of(user)) {
    checks.push_back(
        {"impersonate", true, "", "serviceaccounts", "", account->first, account->second, ""});
  } else {
    checks.push_back({"impersonate", true, "", "users", "", "", user, ""});
  }
  for (const auto& group : groups)
    checks.push_back({"impersonate", true, "", "groups", "", "", group, ""});
  if (!uid.empty())
    checks.push_back({"impersonate", true, "authentication.k8s.io", "uids", "", "", uid, ""});
  return checks;
}

rbac::UserInfo impersonated_user(const std::string& user, const std::vector<std::string>& groups) {
  const auto account = rbac::service_account_of(user);
  if (account && groups.empty()) return rbac::service_account_user(account->first, account->second);
  rbac::UserInfo out{user, groups};
  if (user != "system:anonymous" &&
      std::find(out.groups.begin(), out.groups.end(), "system:authenticated") == out.groups.end())
    out.groups.push_back("system:authenticated");
  return out;
}

json::value forbidden_status(const rbac::UserInfo& user, const rbac::RequestAttributes& request,
                             const std::string& reason) {
  ApiError error(403, "Forbidden", rbac::forbidden_message(user, request, reason));
  if (request.resource_request) {
    error.name = request.name;
    error.group = request.api_group;
    error.kind = request.resource;  // the resource alone, as NewForbidden's GroupResource
  }
  return error.to_status();
}

}  // namespace nvcre::sim::access
