// nvcrectl's --as / --as-group / --as-uid against kube-sim enforcing RBAC: the flags reach the
// server as Impersonate-* headers, and the server acts as the named user only for a client allowed
// to impersonate it.
#include "cli/connection_flags.hpp"
#include "k8s/api_error.hpp"
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>

namespace {

namespace json = boost::json;
using namespace nvcre;

const k8s::ResourceRef kPods{"", "v1", "pods", true};

std::string refusal(k8s::RestClient& client) {
  try {
    client.list(kPods, "team");
    return "allowed";
  } catch (const k8s::ApiError& error) {
    return std::to_string(error.code) + " " + error.message;
  }
}

TEST(Impersonation, TheAsFlagsActAsTheNamedUserWhenTheClientMayImpersonate) {
  sim::KubeSimOptions options;
  options.api.access.rbac = true;
  options.api.access.admin_token = "admin-token";
  sim::KubeSim sim(options);
  sim.start();
  cli::ConnectionFlags admin;
  admin.overrides.server = sim.url();
  admin.overrides.token = "admin-token";
  auto admin_client = cli::connect(admin);
  admin_client->create({"", "v1", "namespaces", false}, "",
                       json::parse(R"({"apiVersion":"v1","kind":"Namespace",
                                       "metadata":{"name":"team"}})"));

  // The admin may impersonate anyone: the request runs as jane in group qa, who may not list pods.
  cli::ConnectionFlags as_jane = admin;
  as_jane.overrides.as = "jane";
  as_jane.overrides.as_groups = {"qa"};
  EXPECT_EQ(refusal(*cli::connect(as_jane)),
            "403 pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" "
            "in the namespace \"team\"");
  // A binding for the group is what jane's request now carries.
  admin_client->create(
      {"rbac.authorization.k8s.io", "v1", "rolebindings", true}, "team",
      json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                      "metadata":{"name":"qa-view"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io",
                      "kind":"ClusterRole","name":"view"},
                      "subjects":[{"kind":"Group","name":"qa"}]})"));
  admin_client->create(
      {"rbac.authorization.k8s.io", "v1", "clusterroles", false}, "",
      json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
                      "metadata":{"name":"view"},"rules":[{"apiGroups":[""],
                      "resources":["pods"],"verbs":["list"]}]})"));
  EXPECT_EQ(refusal(*cli::connect(as_jane)), "allowed");

  // A ServiceAccount may not impersonate: the server names the permission it lacks.
  cli::ConnectionFlags bot_as_bob;
  bot_as_bob.overrides.server = sim.url();
  bot_as_bob.overrides.token = sim.api().tokens().issue("team", "bot");
  bot_as_bob.overrides.as = "bob";
  EXPECT_EQ(refusal(*cli::connect(bot_as_bob)),
            "403 users \"bob\" is forbidden: User \"system:serviceaccount:team:bot\" cannot "
            "impersonate resource \"users\" in API group \"\" at the cluster scope");
}

TEST(Impersonation, GroupsOrAUidWithoutAUserAreRefusedBeforeAnyRequest) {
  cli::ConnectionFlags flags;
  flags.overrides.server = "http://127.0.0.1:1";
  flags.overrides.as_groups = {"qa"};
  EXPECT_THROW(cli::connect(flags), k8s::ConfigError);
}

}  // namespace
