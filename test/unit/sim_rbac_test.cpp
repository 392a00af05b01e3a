// kube-sim's RBAC decisions, over the roles nvcre installs (deploy/manager, deploy/rbac) and small
// hand-made ones: which bindings grant what to whom, aggregation, subresources, resource names,
// non-resource URLs, and the API server's 403 wording.
#include "jsonkit/yaml.hpp"
#include "sim/rbac.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {

using namespace nvcre::sim::rbac;
namespace json = boost::json;

std::vector<json::value> manifests(const std::string& relative) {
  std::ifstream in(std::string(NVCRE_SOURCE_DIR) + "/" + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return nvcre::jsonkit::parse_yaml_documents(text.str());
}

void add(RbacObjects& objects, const json::value& object) {
  const std::string kind(object.at("kind").as_string());
  if (kind == "Role") objects.roles.push_back(object);
  if (kind == "ClusterRole") objects.cluster_roles.push_back(object);
  if (kind == "RoleBinding") objects.role_bindings.push_back(object);
  if (kind == "ClusterRoleBinding") objects.cluster_role_bindings.push_back(object);
}

RbacObjects installed() {
  RbacObjects objects;
  for (const char* file :
       {"deploy/manager/manager_role.yaml", "deploy/manager/leader_election_role.yaml",
        "deploy/manager/metrics_roles.yaml", "deploy/rbac/certification_roles.yaml"}) {
    for (const auto& object : manifests(file)) add(objects, object);
  }
  return objects;
}

RequestAttributes resource(std::string verb, std::string group, std::string resource,
                           std::string ns = "", std::string name = "",
                           std::string subresource = "") {
  RequestAttributes request;
  request.verb = std::move(verb);
  request.api_group = std::move(group);
  request.resource = std::move(resource);
  request.ns = std::move(ns);
  request.name = std::move(name);
  request.subresource = std::move(subresource);
  return request;
}

const UserInfo kManager = service_account_user("nvcre", "nvcre-manager");

TEST(SimRbac, TheManagerMayDoWhatItsRoleLists) {
  const RbacObjects objects = installed();
  EXPECT_TRUE(authorize(objects, kManager, resource("watch", "", "pods")).allowed);
  EXPECT_TRUE(
      authorize(objects, kManager, resource("get", "", "pods", "team", "p", "log")).allowed);
  EXPECT_TRUE(
      authorize(objects, kManager,
                resource("patch", "nvcre.nvidia.com", "certifications", "team", "c", "status"))
          .allowed);
  EXPECT_TRUE(authorize(objects, kManager,
                        resource("update", "nvcre.nvidia.com", "jobs", "team", "j", "finalizers"))
                  .allowed);
  EXPECT_TRUE(
      authorize(objects, kManager, resource("create", "events.k8s.io", "events", "team")).allowed);
}

TEST(SimRbac, TheManagerMayNotReadSecretsNorWriteNodesOrPods) {
  const RbacObjects objects = installed();
  for (const auto& request :
       {resource("get", "", "secrets", "team", "s"), resource("delete", "", "pods", "team", "p"),
        resource("update", "", "nodes", "", "n"), resource("patch", "", "nodes", "", "n"),
        resource("delete", "nvcre.nvidia.com", "logprofiles", "", "nccl-bandwidth"),
        resource("update", "trainer.kubeflow.org", "trainjobs", "team", "t", "status")}) {
    EXPECT_FALSE(authorize(objects, kManager, request).allowed)
        << request.verb << " " << request.resource;
  }
}

TEST(SimRbac, ARoleBindingGrantsOnlyInItsNamespace) {
  const RbacObjects objects = installed();
  EXPECT_TRUE(authorize(objects, kManager,
                        resource("update", "coordination.k8s.io", "leases", "nvcre", "l"))
                  .allowed);
  EXPECT_FALSE(
      authorize(objects, kManager, resource("update", "coordination.k8s.io", "leases", "team", "l"))
          .allowed);
  EXPECT_FALSE(
      authorize(objects, kManager, resource("list", "coordination.k8s.io", "leases")).allowed);
}

TEST(SimRbac, AggregatedRolesCarryTheRulesTheirSelectorsMatch) {
  RbacObjects objects = installed();
  add(objects, nvcre::jsonkit::parse_yaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: edit}
aggregationRule:
  clusterRoleSelectors:
  - matchLabels: {rbac.authorization.k8s.io/aggregate-to-edit: "true"}
rules: []
)"));
  add(objects, nvcre::jsonkit::parse_yaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-edits, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{kind: User, name: alice}]
)"));
  const UserInfo alice{"alice", {"system:authenticated"}};
  EXPECT_TRUE(
      authorize(objects, alice, resource("create", "nvcre.nvidia.com", "certifications", "team"))
          .allowed);
  EXPECT_TRUE(
      authorize(objects, alice,
                resource("get", "nvcre.nvidia.com", "certifications", "team", "c", "status"))
          .allowed);
  // The editor role grants no status writes, and the binding nothing outside its namespace.
  EXPECT_FALSE(
      authorize(objects, alice,
                resource("update", "nvcre.nvidia.com", "certifications", "team", "c", "status"))
          .allowed);
  EXPECT_FALSE(
      authorize(objects, alice, resource("create", "nvcre.nvidia.com", "certifications", "other"))
          .allowed);
}

TEST(SimRbac, GroupsResourceNamesAndSubresourceWildcards) {
  RbacObjects objects;
  add(objects, nvcre::jsonkit::parse_yaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: narrow}
rules:
- {apiGroups: [""], resources: [configmaps], resourceNames: [settings], verbs: [get]}
- {apiGroups: ["*"], resources: ["*/status"], verbs: [get]}
)"));
  add(objects, nvcre::jsonkit::parse_yaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: readers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: narrow}
subjects: [{kind: Group, name: readers}]
)"));
  const UserInfo reader{"bob", {"readers"}};
  EXPECT_TRUE(
      authorize(objects, reader, resource("get", "", "configmaps", "x", "settings")).allowed);
  EXPECT_FALSE(authorize(objects, reader, resource("get", "", "configmaps", "x", "other")).allowed);
  EXPECT_FALSE(authorize(objects, reader, resource("list", "", "configmaps", "x")).allowed);
  EXPECT_TRUE(authorize(objects, reader, resource("get", "apps", "deployments", "x", "d", "status"))
                  .allowed);
  EXPECT_FALSE(
      authorize(objects, reader, resource("get", "apps", "deployments", "x", "d")).allowed);
  EXPECT_FALSE(
      authorize(objects, UserInfo{"bob", {}}, resource("get", "", "configmaps", "x", "settings"))
          .allowed);
  EXPECT_TRUE(authorize(objects, UserInfo{"root", {"system:masters"}},
                        resource("delete", "", "nodes", "", "n"))
                  .allowed);
}

TEST(SimRbac, NonResourceUrlsAreGrantedByClusterRoleBindings) {
  RbacObjects objects = installed();
  add(objects, nvcre::jsonkit::parse_yaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: prometheus-metrics}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nvcre-metrics-reader}
subjects: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]
)"));
  RequestAttributes scrape;
  scrape.verb = "get";
  scrape.resource_request = false;
  scrape.path = "/metrics";
  EXPECT_TRUE(authorize(objects, service_account_user("monitoring", "prometheus"), scrape).allowed);
  EXPECT_FALSE(authorize(objects, kManager, scrape).allowed);
  scrape.path = "/metrics/extra";
  EXPECT_FALSE(
      authorize(objects, service_account_user("monitoring", "prometheus"), scrape).allowed);
}

TEST(SimRbac, ABindingToAMissingRoleIsTheDenialsReason) {
  RbacObjects objects;
  add(objects, nvcre::jsonkit::parse_yaml(R"(
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: dangling}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: gone}
subjects: [{kind: User, name: carol}]
)"));
  const Decision decision =
      authorize(objects, UserInfo{"carol", {}}, resource("list", "", "pods", "team"));
  EXPECT_FALSE(decision.allowed);
  EXPECT_EQ(decision.reason, "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found");
}

TEST(SimRbac, ForbiddenMessagesAreWordedAsTheApiServers) {
  EXPECT_EQ(forbidden_message(kManager, resource("get", "", "secrets", "team", "db"), ""),
            "secrets \"db\" is forbidden: User \"system:serviceaccount:nvcre:nvcre-manager\" "
            "cannot get resource \"secrets\" in API group \"\" in the namespace \"team\"");
  EXPECT_EQ(forbidden_message(kManager, resource("list", "nvcre.nvidia.com", "logprofiles"), ""),
            "logprofiles.nvcre.nvidia.com is forbidden: User "
            "\"system:serviceaccount:nvcre:nvcre-manager\" cannot list resource \"logprofiles\" "
            "in API group \"nvcre.nvidia.com\" at the cluster scope");
  EXPECT_EQ(
      forbidden_message(UserInfo{"u", {}}, resource("get", "", "pods", "ns", "p", "log"),
                        "RBAC: role.rbac.authorization.k8s.io \"r\" not found"),
      "pods \"p\" is forbidden: User \"u\" cannot get resource \"pods/log\" in API group \"\" "
      "in the namespace \"ns\": RBAC: role.rbac.authorization.k8s.io \"r\" not found");
  RequestAttributes scrape;
  scrape.verb = "get";
  scrape.resource_request = false;
  scrape.path = "/metrics";
  EXPECT_EQ(forbidden_message(UserInfo{"u", {}}, scrape, ""),
            "forbidden: User \"u\" cannot get path \"/metrics\"");
}

}  // namespace
