#pragma once
// Kubernetes RBAC authorization as the API server's RBAC authorizer decides it, over the Role,
// ClusterRole, RoleBinding and ClusterRoleBinding objects kube-sim stores: bindings grant their
// role's rules to User, Group and ServiceAccount subjects (a ClusterRoleBinding everywhere, a
// RoleBinding in its namespace); ClusterRoles with an aggregationRule carry the rules of every
// ClusterRole their selectors match; `system:masters` may do anything. Pure: the objects are
// inputs, nothing is cached.
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nvcre::sim::rbac {

struct UserInfo {
  std::string name;                 // "system:serviceaccount:<ns>:<sa>" for a ServiceAccount
  std::vector<std::string> groups;  // e.g. system:authenticated, system:serviceaccounts:<ns>
};

// What a request asks, as the API server's request-info resolver names it.
struct RequestAttributes {
  std::string verb;  // get list watch create update patch delete deletecollection (or for paths:
                     // get post put patch delete head)
  bool resource_request = true;
  std::string api_group;    // "" for core
  std::string resource;     // plural, e.g. "pods"
  std::string subresource;  // e.g. "log", "status"
  std::string ns;           // "" for cluster-scoped resources and cluster-wide lists
  std::string name;         // "" for collections
  std::string path;         // non-resource requests, e.g. "/metrics"
};

struct RbacObjects {
  std::vector<boost::json::value> roles;
  std::vector<boost::json::value> cluster_roles;
  std::vector<boost::json::value> role_bindings;
  std::vector<boost::json::value> cluster_role_bindings;
};

struct Decision {
  bool allowed = false;
  // When denied: why no rule applied beyond "none matched", as the authorizer words it (e.g. a
  // binding naming a role that does not exist); often empty.
  std::string reason;
};

// The user's groups a ServiceAccount token implies, and its user name.
UserInfo service_account_user(const std::string& ns, const std::string& name);
// (namespace, name) of a "system:serviceaccount:<ns>:<name>" user; nullopt for any other user.
std::optional<std::pair<std::string, std::string>> service_account_of(const std::string& user);

Decision authorize(const RbacObjects& objects, const UserInfo& user,
                   const RequestAttributes& request);

// The 403 message the API server returns, e.g. `pods "p" is forbidden: User "u" cannot get
// resource "pods" in API group "" in the namespace "ns"` (the reason appended after ": ").
std::string forbidden_message(const UserInfo& user, const RequestAttributes& request,
                              const std::string& reason);

}  // namespace nvcre::sim::rbac
