#include "manager/reconcile_fault.hpp"

#include "k8s/object_cache.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace nvcre::manager {
namespace {

namespace json = boost::json;

TEST(ReconcileFault, ParsesKindNamespaceAndName) {
  auto parsed = parse_reconcile_fault("Certification/team/cert-1");
  ASSERT_TRUE(std::holds_alternative<ReconcileFaultTarget>(parsed));
  const auto& target = std::get<ReconcileFaultTarget>(parsed);
  EXPECT_EQ(target.kind, "Certification");
  EXPECT_EQ(target.ns, "team");
  EXPECT_EQ(target.name, "cert-1");
  auto cluster_scoped = std::get<ReconcileFaultTarget>(parse_reconcile_fault("LogProfile//nccl"));
  EXPECT_EQ(cluster_scoped.ns, "");
  EXPECT_EQ(cluster_scoped.name, "nccl");
}

TEST(ReconcileFault, RefusesWhatIsNotKindNamespaceName) {
  for (const char* text :
       {"cert-1", "Certification/cert-1", "a/b/c/d", "/team/cert-1", "Certification/team/"}) {
    auto parsed = parse_reconcile_fault(text);
    ASSERT_TRUE(std::holds_alternative<std::string>(parsed)) << text;
    const auto& problem = std::get<std::string>(parsed);
    EXPECT_NE(problem.find("--fault-reconcile-throw"), std::string::npos) << problem;
    EXPECT_NE(problem.find(std::string("\"") + text + "\""), std::string::npos) << problem;
  }
}

TEST(ReconcileFault, OnlyTheTargetThrowsAndOthersReachTheReconcile) {
  int calls = 0;
  reconcile::Function inner = [&](const reconcile::Context&) {
    ++calls;
    return reconcile::Result{};
  };
  auto wrapped = throwing_for(inner, {"Certification", "team", "bad"});
  k8s::ObjectCache cache;
  const k8s::LiveReads live;
  const std::optional<k8s::ActionOutcome> outcome;
  const std::map<std::string, reconcile::PodLogAnswer> pod_logs;
  const reconcile::BuildAnswers answers;
  const json::value memo;
  auto object = [](const char* ns, const char* name) {
    return json::value{{"metadata", {{"namespace", ns}, {"name", name}}}};
  };
  auto context = [&](const json::value* primary) {
    return reconcile::Context{primary,           cache,    live,    outcome,
                              k8s::Clock::now(), pod_logs, answers, memo};
  };
  const json::value bad = object("team", "bad");
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      (void)wrapped(context(&bad));
      FAIL() << "attempt " << attempt << " did not throw";
    } catch (const std::runtime_error& error) {
      EXPECT_NE(std::string(error.what()).find("Certification team/bad throws"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(calls, 0);
  for (const auto& other : {object("team", "good"), object("prod", "bad")}) {
    (void)wrapped(context(&other));
  }
  (void)wrapped(context(nullptr));  // deleted: nothing to match
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace nvcre::manager
