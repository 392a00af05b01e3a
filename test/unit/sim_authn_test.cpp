// kube-sim's identities and review APIs: the admin token and issued ServiceAccount tokens
// authenticate as whom they should, a TokenRequest answers a token that a TokenReview then
// recognises, and access reviews answer what RBAC decides.
#include "jsonkit/yaml.hpp"
#include "k8s/rfc3339.hpp"
#include "sim/authn.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

using namespace nvcre::sim;
namespace json = boost::json;

rbac::RbacObjects reader_of_pods_in(const std::string& ns, const std::string& user) {
  rbac::RbacObjects objects;
  objects.roles.push_back(nvcre::jsonkit::parse_yaml(
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: pod-reader, "
      "namespace: " +
      ns + "}\nrules: [{apiGroups: [''], resources: [pods], verbs: [get, list]}]\n"));
  objects.role_bindings.push_back(nvcre::jsonkit::parse_yaml(
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: b, "
      "namespace: " +
      ns +
      "}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: "
      "pod-reader}\nsubjects: [{kind: User, name: " +
      user + "}]\n"));
  return objects;
}

TEST(SimAuthn, TheAdminTokenIsASystemMaster) {
  auth::TokenRegistry tokens;
  EXPECT_FALSE(tokens.authenticate("secret"));
  tokens.set_admin_token("secret");
  const auto admin = tokens.authenticate("secret");
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->name, auth::kAdminUser);
  EXPECT_NE(std::find(admin->groups.begin(), admin->groups.end(), "system:masters"),
            admin->groups.end());
  EXPECT_FALSE(tokens.authenticate("secreT"));
  EXPECT_FALSE(tokens.authenticate(""));
}

TEST(SimAuthn, ATokenRequestAnswersATokenThatReviewsAsItsServiceAccount) {
  auth::TokenRegistry tokens;
  const auto now = std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 56);
  const json::value answer = auth::answer_token_request(
      tokens, "nvcre", "nvcre-manager",
      nvcre::jsonkit::parse_yaml("apiVersion: authentication.k8s.io/v1\nkind: TokenRequest\n"
                                 "spec: {audiences: [api], expirationSeconds: 600}\n"),
      now);
  const std::string token(answer.at_pointer("/status/token").as_string());
  EXPECT_FALSE(token.empty());
  EXPECT_EQ(answer.at_pointer("/spec/expirationSeconds"), 600);
  EXPECT_EQ(std::string(answer.at_pointer("/status/expirationTimestamp").as_string()),
            nvcre::k8s::format_rfc3339(now + std::chrono::seconds(600)));
  // Two requests, two different tokens, both valid.
  const json::value second =
      auth::answer_token_request(tokens, "nvcre", "nvcre-manager", json::object(), now);
  EXPECT_NE(second.at_pointer("/status/token"), answer.at_pointer("/status/token"));

  const json::value review =
      auth::review_token(tokens, json::object{{"apiVersion", "authentication.k8s.io/v1"},
                                              {"kind", "TokenReview"},
                                              {"spec", {{"token", token}}}});
  EXPECT_EQ(review.at_pointer("/status/authenticated"), true);
  EXPECT_EQ(review.at_pointer("/status/user/username"),
            "system:serviceaccount:nvcre:nvcre-manager");
  const json::value groups =
      json::array{"system:serviceaccounts", "system:serviceaccounts:nvcre", "system:authenticated"};
  EXPECT_EQ(review.at_pointer("/status/user/groups"), groups);

  const json::value unknown = auth::review_token(tokens, json::object{{"spec", {{"token", "x"}}}});
  EXPECT_EQ(unknown.at_pointer("/status/authenticated"), false);
  EXPECT_EQ(unknown.at("kind"), "TokenReview");
}

TEST(SimAuthn, AccessReviewsAnswerWhatRbacDecides) {
  const rbac::RbacObjects objects = reader_of_pods_in("team", "alice");
  auto review = [&](const std::string& user, const std::string& verb, const std::string& ns) {
    return auth::review_access(
        objects,
        json::object{
            {"apiVersion", "authorization.k8s.io/v1"},
            {"kind", "SubjectAccessReview"},
            {"spec",
             {{"user", user},
              {"groups", json::array{"system:authenticated"}},
              {"resourceAttributes", {{"namespace", ns}, {"verb", verb}, {"resource", "pods"}}}}}});
  };
  EXPECT_EQ(review("alice", "list", "team").at_pointer("/status/allowed"), true);
  EXPECT_EQ(review("alice", "delete", "team").at_pointer("/status/allowed"), false);
  EXPECT_EQ(review("alice", "list", "other").at_pointer("/status/allowed"), false);
  EXPECT_EQ(review("bob", "list", "team").at_pointer("/status/allowed"), false);
  EXPECT_THROW(auth::review_access(objects, json::object{{"spec", {{"user", "alice"}}}}),
               std::invalid_argument);
}

TEST(SimAuthn, ASelfReviewIsAboutTheRequester) {
  const rbac::RbacObjects objects = reader_of_pods_in("team", "alice");
  const json::value can_i = json::object{
      {"apiVersion", "authorization.k8s.io/v1"},
      {"kind", "SelfSubjectAccessReview"},
      {"spec",
       {{"resourceAttributes", {{"namespace", "team"}, {"verb", "get"}, {"resource", "pods"}}}}}};
  EXPECT_EQ(auth::review_self_access(objects, {"alice", {}}, can_i).at_pointer("/status/allowed"),
            true);
  EXPECT_EQ(auth::review_self_access(objects, {"bob", {}}, can_i).at_pointer("/status/allowed"),
            false);
  EXPECT_EQ(auth::review_self_access(objects, {"bob", {}}, can_i).at("kind"),
            "SelfSubjectAccessReview");
}

}  // namespace
