// kube-sim with access control on (`--authorization rbac`), request by request through the
// ApiServer: what each request asks as kube-apiserver names it, 401 without a known token, 403 with
// the API server's message and a per-user count, the bootstrap policy (discovery, can-i), and the
// TokenRequest / TokenReview / (Self)SubjectAccessReview endpoints. With access control off nothing
// changes.
#include "sim/access.hpp"
#include "sim/api_server.hpp"
#include "sim/protobuf_body.hpp"
#include "test/support/protobuf_wire.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

using namespace nvcre::sim;
namespace json = boost::json;

TEST(SimAccess, RequestAttributesAsTheApiServerResolvesThem) {
  auto attributes = [](const std::string& method, const std::string& path, QueryParams query = {}) {
    return access::request_attributes(method, path, query);
  };
  auto pods = attributes("GET", "/api/v1/namespaces/a/pods");
  EXPECT_TRUE(pods.resource_request);
  EXPECT_EQ(pods.verb, "list");
  EXPECT_EQ(pods.api_group, "");
  EXPECT_EQ(pods.resource, "pods");
  EXPECT_EQ(pods.ns, "a");
  EXPECT_EQ(attributes("GET", "/api/v1/pods", {{"watch", "true"}}).verb, "watch");
  EXPECT_EQ(attributes("GET", "/api/v1/pods", {{"watch", "false"}}).verb, "list");
  auto log = attributes("GET", "/api/v1/namespaces/a/pods/p/log");
  EXPECT_EQ(log.verb, "get");
  EXPECT_EQ(log.name, "p");
  EXPECT_EQ(log.subresource, "log");
  auto status = attributes("PUT", "/apis/nvcre.nvidia.com/v1alpha1/namespaces/a/jobs/j/status");
  EXPECT_EQ(status.verb, "update");
  EXPECT_EQ(status.api_group, "nvcre.nvidia.com");
  EXPECT_EQ(status.subresource, "status");
  EXPECT_EQ(attributes("DELETE", "/api/v1/namespaces/a/configmaps").verb, "deletecollection");
  EXPECT_EQ(attributes("DELETE", "/api/v1/namespaces/a/configmaps/c").verb, "delete");
  EXPECT_EQ(attributes("PATCH", "/api/v1/nodes/n").verb, "patch");
  auto token = attributes("POST", "/api/v1/namespaces/nvcre/serviceaccounts/sa/token");
  EXPECT_EQ(token.verb, "create");
  EXPECT_EQ(token.resource, "serviceaccounts");
  EXPECT_EQ(token.subresource, "token");
  // A Namespace is in itself; its status is a subresource, not a resource named "status".
  auto ns = attributes("GET", "/api/v1/namespaces/a/status");
  EXPECT_EQ(ns.resource, "namespaces");
  EXPECT_EQ(ns.name, "a");
  EXPECT_EQ(ns.ns, "a");
  EXPECT_EQ(ns.subresource, "status");
  auto lease = attributes("GET", "/apis/coordination.k8s.io/v1/namespaces/n/leases",
                          {{"fieldSelector", "metadata.name=lock"}});
  EXPECT_EQ(lease.verb, "list");
  EXPECT_EQ(lease.name, "lock");
  auto discovery = attributes("GET", "/apis/nvcre.nvidia.com/v1alpha1");
  EXPECT_FALSE(discovery.resource_request);
  EXPECT_EQ(discovery.verb, "get");
  EXPECT_EQ(discovery.path, "/apis/nvcre.nvidia.com/v1alpha1");
}

class SimAccessServer : public ::testing::Test {
 protected:
  SimAccessServer() : api_(options()) {}

  static ApiServerOptions options() {
    ApiServerOptions options;
    options.access.rbac = true;
    options.access.admin_token = "admin-secret";
    return options;
  }

  HttpResponse call(const std::string& method, const std::string& path, const std::string& token,
                    const std::string& body = "", QueryParams query = {}) {
    HttpRequest request{method, path, std::move(query), "application/json", "application/json",
                        body};
    request.bearer_token = token;
    return std::get<HttpResponse>(api_.handle(request));
  }

  static json::value parse(const HttpResponse& response) { return json::parse(response.body); }

  // A ServiceAccount `sa` in `ns` and a token for it, created as the admin.
  std::string service_account_token(const std::string& ns, const std::string& sa) {
    call("POST", "/api/v1/namespaces", "admin-secret",
         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})");
    EXPECT_EQ(
        call("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts", "admin-secret",
             R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":")" + sa + R"("}})")
            .status,
        201);
    const HttpResponse answer =
        call("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts/" + sa + "/token",
             "admin-secret", R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest"})");
    EXPECT_EQ(answer.status, 201) << answer.body;
    return std::string(parse(answer).at_pointer("/status/token").as_string());
  }

  ApiServer api_;
};

TEST_F(SimAccessServer, NoOrAnUnknownTokenIs401AndHealthNeedsNone) {
  for (const char* token : {"", "not-a-token"}) {
    const HttpResponse answer = call("GET", "/api/v1/namespaces", token);
    EXPECT_EQ(answer.status, 401);
    EXPECT_EQ(parse(answer), json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
        "status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"));
  }
  EXPECT_EQ(call("GET", "/healthz", "").status, 200);
  EXPECT_EQ(call("GET", "/version", "").status, 200);
  EXPECT_EQ(call("GET", "/api", "").status, 401);
  EXPECT_EQ(api_.request_log().stats(0).at("unauthenticated"), 3);
  EXPECT_EQ(call("GET", "/api/v1/namespaces", "admin-secret").status, 200);
}

TEST_F(SimAccessServer, AServiceAccountGetsWhatItsBindingsGrantAndA403NamingTheRest) {
  const std::string token = service_account_token("team", "bot");
  const std::string user = "system:serviceaccount:team:bot";
  // Discovery is every authenticated user's (the bootstrap policy), resources are not.
  EXPECT_EQ(call("GET", "/apis", token).status, 200);
  HttpResponse denied = call("GET", "/api/v1/namespaces/team/pods", token);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(parse(denied), json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
      "status":"Failure","message":"pods is forbidden: User \"system:serviceaccount:team:bot\" cannot list resource \"pods\" in API group \"\" in the namespace \"team\"",
      "reason":"Forbidden","details":{"kind":"pods"},"code":403})"));
  denied = call("GET", "/apis/coordination.k8s.io/v1/leases", token, "", {{"watch", "1"}});
  EXPECT_EQ(parse(denied).at("message"),
            "leases.coordination.k8s.io is forbidden: User \"system:serviceaccount:team:bot\" "
            "cannot watch resource \"leases\" in API group \"coordination.k8s.io\" at the cluster "
            "scope");
  EXPECT_EQ(api_.request_log().denied(user), 2u);
  EXPECT_EQ(api_.request_log().stats(0).at("deniedByUser").at(user), 2);

  // A ClusterRole granting pods/log and list pods, bound in the namespace by a RoleBinding.
  EXPECT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "admin-secret",
                 R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
                     "metadata":{"name":"logs"},"rules":[{"apiGroups":[""],
                     "resources":["pods","pods/log"],"verbs":["get","list"]}]})")
                .status,
            201);
  EXPECT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                 "admin-secret",
                 R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                     "metadata":{"name":"logs"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
                     "kind":"ClusterRole","name":"logs"},
                     "subjects":[{"kind":"ServiceAccount","name":"bot","namespace":"team"}]})")
                .status,
            201);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/team/pods", token).status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods", token).status, 403);
  denied = call("DELETE", "/api/v1/namespaces/team/pods/p", token);
  EXPECT_EQ(parse(denied).at("message"),
            "pods \"p\" is forbidden: User \"system:serviceaccount:team:bot\" cannot delete "
            "resource \"pods\" in API group \"\" in the namespace \"team\"");
  EXPECT_EQ(parse(denied).at_pointer("/details/name"), "p");
  EXPECT_EQ(api_.request_log().denied(user), 4u);
}

// OwnerReferencesPermissionEnforcement: a reference that blocks its owner's deletion needs update
// on the owner's finalizers; changing an existing object's references needs delete on it.
TEST_F(SimAccessServer, BlockingAnOwnersDeletionNeedsUpdateOnItsFinalizers) {
  const std::string token = service_account_token("team", "bot");
  const std::string user = "system:serviceaccount:team:bot";
  const std::string configmaps = "/api/v1/namespaces/team/configmaps";
  const HttpResponse owner =
      call("POST", configmaps, "admin-secret",
           R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}})");
  ASSERT_EQ(owner.status, 201);
  const std::string uid(parse(owner).at_pointer("/metadata/uid").as_string());
  auto child = [&](const std::string& name, const std::string& api_version, const std::string& kind,
                   bool block) {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
           R"(","ownerReferences":[{"apiVersion":")" + api_version + R"(","kind":")" + kind +
           R"(","name":"owner","uid":")" + uid + R"(","blockOwnerDeletion":)" +
           (block ? "true" : "false") + "}]}}";
  };
  auto grant = [&](const std::string& name, const std::string& rules) {
    EXPECT_EQ(
        call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", "admin-secret",
             R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":
                       {"name":")" +
                 name + R"("},"rules":)" + rules + "}")
            .status,
        201);
    EXPECT_EQ(call("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                   "admin-secret",
                   R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                       "metadata":{"name":")" +
                       name + R"("},"roleRef":{"apiGroup":
                       "rbac.authorization.k8s.io","kind":"Role","name":")" +
                       name + R"("},
                       "subjects":[{"kind":"ServiceAccount","name":"bot","namespace":"team"}]})")
                  .status,
              201);
  };
  grant("write", R"([{"apiGroups":[""],"resources":["configmaps"],
                      "verbs":["create","get","update"]}])");

  HttpResponse answer = call("POST", configmaps, token, child("blocking", "v1", "ConfigMap", true));
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(parse(answer), json::parse(R"({"kind":"Status","apiVersion":"v1","metadata":{},
      "status":"Failure","message":"configmaps \"blocking\" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>",
      "reason":"Forbidden","details":{"name":"blocking","kind":"configmaps"},"code":403})"));
  EXPECT_EQ(api_.request_log().denied(user), 1u);
  // A reference that does not block needs nothing more than the create.
  answer = call("POST", configmaps, token, child("plain", "v1", "ConfigMap", false));
  EXPECT_EQ(answer.status, 201) << answer.body;
  // Changing the references of an existing object needs delete on it.
  json::value plain = parse(answer);
  plain.at_pointer("/metadata/ownerReferences").as_array().clear();
  answer = call("PUT", configmaps + "/plain", token, json::serialize(plain));
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(parse(answer).at("message"),
            "configmaps \"plain\" is forbidden: cannot set an ownerRef on a resource you can't "
            "delete: , <nil>");
  // An update that leaves the references alone needs no more than the update.
  plain = parse(call("GET", configmaps + "/plain", token));
  plain.as_object()["data"] = json::object{{"k", "v"}};
  EXPECT_EQ(call("PUT", configmaps + "/plain", token, json::serialize(plain)).status, 200);

  grant("finalize", R"([{"apiGroups":[""],"resources":["configmaps/finalizers"],
                         "verbs":["update"]}])");
  answer = call("POST", configmaps, token, child("blocking", "v1", "ConfigMap", true));
  EXPECT_EQ(answer.status, 201) << answer.body;
  // An owner kind no API serves cannot be checked, so it is refused.
  answer = call("POST", configmaps, token, child("unmapped", "example.com/v1", "Widget", true));
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(parse(answer).at("message"),
            "configmaps \"unmapped\" is forbidden: cannot set blockOwnerDeletion in this case "
            "because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches "
            "for kind \"Widget\" in version \"example.com/v1\"");
  // The cluster admin may finalize anything.
  EXPECT_EQ(
      call("POST", configmaps, "admin-secret", child("unmapped", "example.com/v1", "Widget", true))
          .status,
      201);
  EXPECT_EQ(api_.request_log().denied(user), 3u);
}

// Impersonate-* headers: checked as `impersonate` on users (or the ServiceAccount), groups and
// uids; the request then runs as the impersonated user.
TEST_F(SimAccessServer, ImpersonationNeedsImpersonateAndThenActsAsTheNamedUser) {
  const std::string token = service_account_token("team", "bot");
  auto as = [&](const std::string& caller, const std::string& user,
                std::vector<std::string> groups = {}, const std::string& uid = "") {
    HttpRequest request{
        "GET", "/api/v1/namespaces/team/pods", {}, "application/json", "application/json", ""};
    request.bearer_token = caller;
    request.impersonate_user = user;
    request.impersonate_groups = std::move(groups);
    request.impersonate_uid = uid;
    return std::get<HttpResponse>(api_.handle(request));
  };
  HttpResponse answer = as("admin-secret", "jane", {"qa"}, "1234");
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(parse(answer).at("message"),
            "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in "
            "the namespace \"team\"");
  answer = as(token, "jane");
  EXPECT_EQ(answer.status, 403);
  EXPECT_EQ(parse(answer).at("message"),
            "users \"jane\" is forbidden: User \"system:serviceaccount:team:bot\" cannot "
            "impersonate resource \"users\" in API group \"\" at the cluster scope");
  answer = as(token, "system:serviceaccount:team:builder");
  EXPECT_EQ(parse(answer).at("message"),
            "serviceaccounts \"builder\" is forbidden: User \"system:serviceaccount:team:bot\" "
            "cannot impersonate resource \"serviceaccounts\" in API group \"\" in the namespace "
            "\"team\"");
  // Allowed to impersonate users but not groups: the group is what is refused.
  call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "admin-secret",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
           "metadata":{"name":"impersonate-users"},"rules":[{"apiGroups":[""],
           "resources":["users"],"verbs":["impersonate"]}]})");
  call("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "admin-secret",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",
           "metadata":{"name":"bot-impersonates"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
           "kind":"ClusterRole","name":"impersonate-users"},
           "subjects":[{"kind":"ServiceAccount","name":"bot","namespace":"team"}]})");
  EXPECT_EQ(parse(as(token, "jane")).at("message"),
            "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" in "
            "the namespace \"team\"");
  EXPECT_EQ(parse(as(token, "jane", {"system:masters"})).at("message"),
            "groups \"system:masters\" is forbidden: User \"system:serviceaccount:team:bot\" "
            "cannot impersonate resource \"groups\" in API group \"\" at the cluster scope");
  // Groups without a user are a malformed request.
  answer = as("admin-secret", "", {"qa"});
  EXPECT_EQ(answer.status, 400);
}

TEST_F(SimAccessServer, TheReviewEndpointsAnswerWithoutStoringAnything) {
  const std::string token = service_account_token("team", "bot");
  HttpResponse review = call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", "admin-secret",
                             R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",
                                 "spec":{"token":")" +
                                 token + R"("}})");
  EXPECT_EQ(review.status, 201) << review.body;
  EXPECT_EQ(parse(review).at_pointer("/status/user/username"), "system:serviceaccount:team:bot");
  // The ServiceAccount itself may not review tokens: nothing grants it tokenreviews.
  EXPECT_EQ(call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", token,
                 R"({"spec":{"token":"x"}})")
                .status,
            403);
  const std::string ask = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
      "spec":{"user":"system:serviceaccount:team:bot","groups":["system:authenticated"],
      "nonResourceAttributes":{"path":"/metrics","verb":"get"}}})";
  review = call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "admin-secret", ask);
  EXPECT_EQ(review.status, 201) << review.body;
  EXPECT_EQ(parse(review).at_pointer("/status/allowed"), false);
  // can-i: every authenticated user may ask about itself (system:basic-user).
  review = call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", token,
                R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
                    "spec":{"resourceAttributes":{"verb":"get","resource":"secrets",
                    "namespace":"team"}}})");
  EXPECT_EQ(review.status, 201) << review.body;
  EXPECT_EQ(parse(review).at_pointer("/status/allowed"), false);
  review = call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "admin-secret",
                R"({"spec":{"resourceAttributes":{"verb":"get","resource":"secrets"}}})");
  EXPECT_EQ(parse(review).at_pointer("/status/allowed"), true);
  EXPECT_EQ(
      call("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "admin-secret").status,
      405);
  EXPECT_EQ(
      call("POST", "/api/v1/namespaces/team/serviceaccounts/nobody/token", "admin-secret", "{}")
          .status,
      404);
}

TEST_F(SimAccessServer, DiscoveryListsTheReviewKindsAndTheTokenSubresource) {
  const json::value core = parse(call("GET", "/api/v1", "admin-secret"));
  bool token = false;
  for (const auto& r : core.at("resources").as_array())
    if (r.at("name") == "serviceaccounts/token") {
      token = true;
      EXPECT_EQ(r.at("kind"), "TokenRequest");
      EXPECT_EQ(r.at("group"), "authentication.k8s.io");
    }
  EXPECT_TRUE(token);
  for (const char* gv : {"/apis/authentication.k8s.io/v1", "/apis/authorization.k8s.io/v1"}) {
    const json::value list = parse(call("GET", gv, "admin-secret"));
    for (const auto& r : list.at("resources").as_array())
      EXPECT_EQ(r.at("verbs"), json::value(json::array{"create"})) << json::serialize(r);
  }
}

using nvcre::testing::protobuf::envelope;
using nvcre::testing::protobuf::field;
using nvcre::testing::protobuf::varint_field;

TEST(SimAccessProtobuf, TheBodiesOfCreateTokenAndCanIDecode) {
  // kubectl create token nvcre-manager --duration=10m --audience=api
  const std::string token_request =
      field(1, field(1, "nvcre-manager")) +
      field(2, field(1, "api") + varint_field(4, 600) + field(3, field(1, "Pod") + field(3, "p")));
  EXPECT_EQ(
      decode_protobuf_object(envelope("authentication.k8s.io/v1", "TokenRequest", token_request)),
      json::parse(R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest",
                "metadata":{"name":"nvcre-manager"},"spec":{"audiences":["api"],
                "expirationSeconds":600,"boundObjectRef":{"kind":"Pod","name":"p"}}})"));
  // kubectl auth can-i get pods --subresource=log -n team
  const std::string can_i =
      field(1, "") +
      field(2, field(1, field(1, "team") + field(2, "get") + field(5, "pods") + field(6, "log")));
  EXPECT_EQ(
      decode_protobuf_object(envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", can_i)),
      json::parse(R"({"apiVersion":"authorization.k8s.io/v1",
                "kind":"SelfSubjectAccessReview","metadata":{},"spec":{"resourceAttributes":
                {"namespace":"team","verb":"get","resource":"pods","subresource":"log"}}})"));
  const std::string review = field(2, field(2, field(1, "/metrics") + field(2, "get")) +
                                          field(3, "alice") + field(4, "system:authenticated"));
  EXPECT_EQ(
      decode_protobuf_object(envelope("authorization.k8s.io/v1", "SubjectAccessReview", review)),
      json::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
                "metadata":{},"spec":{"nonResourceAttributes":{"path":"/metrics","verb":"get"},
                "user":"alice","groups":["system:authenticated"]}})"));
}

TEST(SimAccessOpen, WithAccessControlOffEveryRequestIsServedAndReviewsAllow) {
  ApiServer api;
  auto call = [&](const std::string& method, const std::string& path, const std::string& body) {
    return std::get<HttpResponse>(
        api.handle(HttpRequest{method, path, {}, "application/json", "application/json", body}));
  };
  EXPECT_EQ(call("GET", "/api/v1/namespaces", "").status, 200);
  const HttpResponse review = call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                   R"({"spec":{"user":"anyone","resourceAttributes":
                                       {"verb":"delete","resource":"nodes"}}})");
  EXPECT_EQ(review.status, 201) << review.body;
  EXPECT_EQ(json::parse(review.body).at_pointer("/status/allowed"), true);
  EXPECT_EQ(json::parse(review.body).at("kind"), "SubjectAccessReview");
}

}  // namespace
