#pragma once
// kube-sim's access control as a request filter (`kube-sim --authorization rbac`), the pure part:
// what a request asks as kube-apiserver's request-info resolver names it, who may come in without
// a token, the bootstrap policy every RBAC cluster starts with, and the 401 / 403 Status bodies.
// The decision itself is sim/rbac's; the tokens are sim/authn's.
#include "sim/query_params.hpp"
#include "sim/rbac.hpp"

#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace nvcre::sim::access {

// The verb, group, resource, subresource, namespace and name of a request, as kube-apiserver
// resolves them: GET on a collection is list (watch with ?watch=true), DELETE on one is
// deletecollection, `/namespaces/<ns>` is resource namespaces in namespace <ns>, a list or watch
// with `fieldSelector=metadata.name=<n>` names <n>; anything outside /api/<v>/... and
// /apis/<g>/<v>/... is a non-resource request (the lower-cased method and the path).
rbac::RequestAttributes request_attributes(const std::string& method, const std::string& path,
                                           const QueryParams& query);

// The health and version endpoints: served without a token (as an API server whose anonymous
// access is limited to them), to the user system:anonymous in group system:unauthenticated.
bool anonymous_path(const std::string& path);
rbac::UserInfo anonymous_user();

// The ClusterRoles and ClusterRoleBindings a new RBAC cluster has that kube-sim's requests rely on:
// system:discovery (discovery and OpenAPI paths), system:basic-user (SelfSubjectAccessReview) and
// system:public-info-viewer (health, version), bound as kube-apiserver binds them.
std::vector<boost::json::value> bootstrap_cluster_roles();
std::vector<boost::json::value> bootstrap_cluster_role_bindings();

// Impersonation (Impersonate-User / -Group / -Uid): the checks the authenticated user must pass,
// as kube-apiserver's impersonation filter makes them (`impersonate` on users, or on the
// ServiceAccount for a system:serviceaccount:<ns>:<name> user, on groups and on uids), and the
// user the request then runs as: the named groups, or a ServiceAccount's own, and
// system:authenticated.
std::vector<rbac::RequestAttributes> impersonation_checks(const std::string& user,
                                                          const std::vector<std::string>& groups,
                                                          const std::string& uid);
rbac::UserInfo impersonated_user(const std::string& user, const std::vector<std::string>& groups);

// The API server's answers: 401 for a missing or unknown token, 403 naming what was refused.
boost::json::value unauthorized_status();
boost::json::value forbidden_status(const rbac::UserInfo& user,
                                    const rbac::RequestAttributes& request,
                                    const std::string& reason);

}  // namespace nvcre::sim::access
