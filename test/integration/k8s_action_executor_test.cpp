// Reconcile actions carried out against an in-process kube-sim: kinds mapped to resources through
// discovery (incl. a CRD installed after the first miss), verbs, and failures returned as values.
#include "k8s/action_executor.hpp"

#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

class ActionExecutor : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_.start();
    ClientConfig config;
    config.server = sim_.url();
    config.rate_limit.qps = -1;
    RestClientOptions options;
    options.timeout = std::chrono::seconds(2);
    options.max_retries = 0;
    client_ = std::make_unique<RestClient>(config, options);
    mapper_ = std::make_unique<ResourceMapper>(*client_);
    run(make_action(
        ActionVerb::Create, ObjectRef{"v1", "Namespace", "", "it"},
        json::object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "it"}}}}));
  }
  void TearDown() override { sim_.stop(); }

  ActionResult run(Action action) { return execute_action(*client_, *mapper_, action); }

  sim::KubeSim sim_;
  std::unique_ptr<RestClient> client_;
  std::unique_ptr<ResourceMapper> mapper_;
};

json::value config_map(const char* name) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", {{"name", name}, {"namespace", "it"}}},
                      {"data", {{"k", "v"}}}};
}

TEST_F(ActionExecutor, CarriesOutEveryVerb) {
  ObjectRef cm{"v1", "ConfigMap", "it", "cm"};
  ActionResult created = run(make_action(ActionVerb::Create, cm, config_map("cm")));
  ASSERT_TRUE(created.ok()) << created.message;
  std::string uid(created.object.at("metadata").at("uid").as_string());

  EXPECT_EQ(run(make_action(ActionVerb::Create, cm, config_map("cm"))).reason, "AlreadyExists");
  ActionResult patched =
      run(make_action(ActionVerb::MergePatch, cm, json::object{{"data", {{"k", "w"}}}}));
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched.object.at("data").at("k"), "w");

  ActionResult live = run(live_get(cm));
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(live.object.at("metadata").at("uid").as_string(), uid);

  Action wrong_uid = make_action(ActionVerb::Delete, cm);
  wrong_uid.precondition_uid = "not-the-uid";
  EXPECT_EQ(run(wrong_uid).code, 409);
  wrong_uid.ignore_conflict = true;
  EXPECT_TRUE(run(wrong_uid).ok());

  // Any other Conflict on a delete did not delete: it is reported, so the plan stops and retries.
  sim_.api().faults().set_plan(sim::parse_fault_plan(
      "seed: 3\nverbs:\n  delete: {errors: [{code: 409, rate: 1, resource: configmaps}]}\n"));
  Action owned_delete = delete_owned(cm, uid);
  ASSERT_TRUE(owned_delete.ignore_conflict);
  const ActionResult refused = run(owned_delete);
  EXPECT_EQ(refused.code, 409);
  EXPECT_EQ(refused.reason, "Conflict");
  ASSERT_FALSE(run(live_get(cm)).object.is_null()) << "the injected Conflict deleted nothing";
  sim_.api().faults().set_plan(sim::FaultPlan{});

  EXPECT_TRUE(run(delete_owned(cm, uid)).ok());
  ActionResult gone = run(live_get(cm));
  EXPECT_TRUE(gone.ok());
  EXPECT_TRUE(gone.object.is_null());
  EXPECT_EQ(run(make_action(ActionVerb::Delete, cm)).code, 404);
  Action tolerant = make_action(ActionVerb::Delete, cm);
  tolerant.ignore_not_found = true;
  EXPECT_TRUE(run(tolerant).ok());
}

TEST_F(ActionExecutor, UnknownKindIsAnAnswerAndAnInstalledCrdIsFoundLater) {
  ObjectRef cert{"nvcre.nvidia.com/v1alpha1", "Certification", "it", "c"};
  ActionResult missing = run(live_get(cert));
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.reason, "NoKindMatch");
  EXPECT_NE(missing.message.find("is its CustomResourceDefinition installed?"), std::string::npos);

  json::value crd = json::object{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "certifications.nvcre.nvidia.com"}}},
      {"spec",
       {{"group", "nvcre.nvidia.com"},
        {"scope", "Namespaced"},
        {"names",
         {{"plural", "certifications"}, {"singular", "certification"}, {"kind", "Certification"}}},
        {"versions",
         json::array{json::object{
             {"name", "v1alpha1"},
             {"served", true},
             {"storage", true},
             {"schema",
              {{"openAPIV3Schema",
                {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}}}}}};
  ASSERT_TRUE(run(make_action(ActionVerb::Create,
                              ObjectRef{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "",
                                        "certifications.nvcre.nvidia.com"},
                              crd))
                  .ok());
  ActionResult found = run(live_get(cert));
  EXPECT_TRUE(found.ok()) << found.message;
  EXPECT_TRUE(found.object.is_null());
}

TEST_F(ActionExecutor, TransportFailuresAreAnswersToo) {
  sim_.stop();
  ActionResult result = run(live_get(ObjectRef{"v1", "ConfigMap", "it", "x"}));
  EXPECT_EQ(result.code, 0);
  EXPECT_FALSE(result.ok());
}

}  // namespace
}  // namespace nvcre::k8s
