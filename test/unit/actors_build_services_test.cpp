// The build services as actors (actors/platform_detector, catalog_resolver, workflow_assembler,
// build_services): typed requests and answers, refusals as answers and failures as errors, the
// detector's Node view following the store's Node changes, a failing service staying up, and a
// reconciler whose service fails ending its pass in an error (the controller's retry) and
// succeeding on the next one.
#include "actors/build_services.hpp"
#include "actors/catalog_resolver.hpp"
#include "actors/workflow_assembler.hpp"
#include "actors/platform_detector.hpp"
#include "actors/reconciler.hpp"
#include "actors/store.hpp"
#include "api/codec.hpp"
#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "certification/build.hpp"
#include "sim/cluster_profile.hpp"

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <thread>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

api::Certification certification_for(const std::string& domain, const std::string& variant) {
  return api::decode_object<api::Certification>(jsonkit::parse_yaml(R"(
apiVersion: nvcre.nvidia.com/v1alpha1
kind: Certification
metadata: {name: rack7, namespace: gpu-validation, uid: 1111-2222, resourceVersion: "42"}
spec:
  target: {nodeSelector: {nvidia.com/gpu.present: "true"}}
  gangScheduler: {schedulerName: kai-scheduler, queue: burnin}
  categories:
    - {domain: )" + domain + ", variant: " + variant + "}\n"));
}

json::value with_version(json::value node, const std::string& version) {
  node.at("metadata").as_object()["resourceVersion"] = version;
  return node;
}

std::vector<platform::NodeRef> refs_of(const std::vector<json::value>& nodes) {
  std::vector<platform::NodeRef> refs;
  for (const auto& n : nodes)
    refs.push_back({std::string(n.at("metadata").at("name").as_string()), ""});
  return refs;
}

StoreDelta upsert(json::value object) {
  StoreDelta delta;
  delta.type = StoreDelta::Type::Upsert;
  delta.object = std::move(object);
  return delta;
}

class BuildServices : public ::testing::Test {
 protected:
  BuildServices() : system_(config_), self_(system_) {
    for (auto& n : sim::build_cluster_nodes(sim::parse_cluster_profile("aws:h100:3"))) {
      nodes_.push_back(with_version(std::move(n), "1"));
    }
    cache_->write([&](k8s::ObjectCache& cache) {
      for (const auto& n : nodes_) cache.upsert(n);
    });
  }

  // One typed request, waited for: the answer, or the error's text.
  template <class Answer, class Handle, class... Ts>
  std::pair<std::optional<Answer>, std::string> ask(const Handle& handle, Ts&&... xs) {
    std::optional<Answer> answer;
    std::string error;
    self_->request(handle, 10s, std::forward<Ts>(xs)...)
        .receive([&](Answer& value) { answer = std::move(value); },
                 [&](caf::error& failure) { error = system_.render(failure); });
    return {std::move(answer), error};
  }

  std::shared_ptr<SharedCache> cache_ = std::make_shared<SharedCache>();
  std::vector<json::value> nodes_;
  caf::actor_system_config config_;
  caf::actor_system system_;
  caf::scoped_actor self_;
};

TEST_F(BuildServices, DetectorAnswersTypedFactsFromItsNodeView) {
  auto detector = spawn_platform_detector(system_, {cache_});
  auto [facts, error] =
      ask<platform::DetectionFacts>(detector, detect_atom::value, refs_of(nodes_));
  ASSERT_TRUE(facts) << error;
  EXPECT_EQ(facts->platform, "aws");
  EXPECT_EQ(facts->selection.architecture, "h100");
  EXPECT_EQ(facts->nodes.size(), 3U);

  // A second request over the same node versions reuses the derived facts.
  auto [before, e1] = ask<PlatformDetectorStats>(detector, stats_atom::value);
  (void)ask<platform::DetectionFacts>(detector, detect_atom::value, refs_of(nodes_));
  auto [after, e2] = ask<PlatformDetectorStats>(detector, stats_atom::value);
  ASSERT_TRUE(before && after);
  EXPECT_EQ(after->derivations, before->derivations);
  EXPECT_EQ(after->known_nodes, 3U);

  auto [missing, why] = ask<platform::DetectionFacts>(
      detector, detect_atom::value, std::vector<platform::NodeRef>{{"no-such-node", "1"}});
  EXPECT_FALSE(missing);
  EXPECT_NE(why.find("no-such-node is no longer cached"), std::string::npos) << why;
  self_->send_exit(detector, caf::exit_reason::user_shutdown);
}

TEST_F(BuildServices, DetectorFollowsTheStoresNodeChanges) {
  StoreConfig store_config;
  store_config.cache = cache_;
  auto the_store = system_.spawn(store, std::move(store_config));
  auto detector = spawn_platform_detector(system_, {cache_});
  self_->send(the_store, subscribe_atom::value, change_subscriber_actor{detector});

  // A GB200 product label on every node, through the store: the detector re-derives on the notices.
  std::vector<StoreDelta> deltas;
  for (const auto& n : nodes_) {
    json::value changed = with_version(n, "2");
    changed.at("metadata").at("labels").as_object()["nvidia.com/gpu.product"] = "NVIDIA-GB200";
    deltas.push_back(upsert(std::move(changed)));
  }
  self_->send(the_store, apply_atom::value, std::move(deltas));
  bool derived = false;
  for (int attempt = 0; attempt < 200 && !derived; ++attempt) {
    auto [stats, error] = ask<PlatformDetectorStats>(detector, stats_atom::value);
    derived = stats && stats->known_nodes == 3U && stats->derivations == 3U;
    if (!derived) std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(derived) << "the detector never saw the store's Node changes";
  auto [facts, error] =
      ask<platform::DetectionFacts>(detector, detect_atom::value, refs_of(nodes_));
  ASSERT_TRUE(facts) << error;
  EXPECT_EQ(facts->selection.architecture, "gb200");
  auto [stats, e] = ask<PlatformDetectorStats>(detector, stats_atom::value);
  EXPECT_EQ(stats->derivations, 3U) << "facts derived on the notices are not derived again";

  // A deleted Node leaves the view.
  StoreDelta removal;
  removal.type = StoreDelta::Type::Delete;
  removal.object = with_version(nodes_.front(), "3");
  removal.ref = k8s::object_ref_of(nodes_.front());
  self_->send(the_store, apply_atom::value, std::vector<StoreDelta>{removal});
  bool forgotten = false;
  for (int attempt = 0; attempt < 200 && !forgotten; ++attempt) {
    auto [now, error2] = ask<PlatformDetectorStats>(detector, stats_atom::value);
    forgotten = now && now->known_nodes == 2U;
    if (!forgotten) std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(forgotten);
  self_->send_exit(detector, caf::exit_reason::user_shutdown);
  self_->send_exit(the_store, caf::exit_reason::user_shutdown);
}

TEST_F(BuildServices, ResolverAndGangSchedulerAnswerWhatTheOfflineCompositionBuilds) {
  auto resolver = spawn_catalog_resolver(system_);
  auto gang = spawn_workflow_assembler(system_);
  const auto cert = certification_for("communication", "nccl-all-reduce");
  const certification::CategoryBuildRequest request{cert, cert.spec.categories.front(),
                                                    refs_of(nodes_)};
  auto [resolved, error] = ask<certification::ResolveAnswer>(resolver, resolve_atom::value, request,
                                                             platform::detect_nodes(nodes_));
  ASSERT_TRUE(resolved) << error;
  ASSERT_TRUE(std::holds_alternative<certification::ResolvedCategory>(*resolved));
  auto [built, error2] = ask<certification::CategoryBuildAnswer>(
      gang, assemble_atom::value, cert,
      std::get<certification::ResolvedCategory>(std::move(*resolved)));
  ASSERT_TRUE(built) << error2;
  ASSERT_TRUE(std::holds_alternative<certification::CategoryBuild>(*built));
  const auto offline = certification::build_category_workflow(cert, cert.spec.categories.front(),
                                                              {nodes_, "h100", false});
  EXPECT_EQ(
      json::serialize(api::encode_object(std::get<certification::CategoryBuild>(*built).workflow)),
      json::serialize(api::encode_object(offline.workflow)));

  // A refusal is an answer, not an error.
  const auto unknown = certification_for("nope", "nothing");
  auto [refused, error3] = ask<certification::ResolveAnswer>(
      resolver, resolve_atom::value,
      certification::CategoryBuildRequest{unknown, unknown.spec.categories.front(), {}},
      platform::detect_nodes(nodes_));
  ASSERT_TRUE(refused) << error3;
  ASSERT_TRUE(std::holds_alternative<certification::BuildFailure>(*refused));
  EXPECT_EQ(std::get<certification::BuildFailure>(*refused).reason, "CategoryNotFound");
  self_->send_exit(resolver, caf::exit_reason::user_shutdown);
  self_->send_exit(gang, caf::exit_reason::user_shutdown);
}

TEST_F(BuildServices, AThrowingServiceRepliesWithAnErrorAndStaysUp) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  CatalogResolverConfig config;
  config.resolve = [calls](const auto& request, const auto& facts, const auto& catalog) {
    if (++*calls == 1) throw std::runtime_error("injected resolver crash");
    return certification::resolve_for_request(request, facts, catalog);
  };
  auto resolver = spawn_catalog_resolver(system_, config);
  const auto cert = certification_for("communication", "nccl-all-reduce");
  const certification::CategoryBuildRequest request{cert, cert.spec.categories.front(),
                                                    refs_of(nodes_)};
  auto [first, error] = ask<certification::ResolveAnswer>(resolver, resolve_atom::value, request,
                                                          platform::detect_nodes(nodes_));
  EXPECT_FALSE(first);
  EXPECT_NE(error.find("catalog_resolver: injected resolver crash"), std::string::npos) << error;
  auto [second, error2] = ask<certification::ResolveAnswer>(resolver, resolve_atom::value, request,
                                                            platform::detect_nodes(nodes_));
  ASSERT_TRUE(second) << error2;
  EXPECT_TRUE(std::holds_alternative<certification::ResolvedCategory>(*second));
  self_->send_exit(resolver, caf::exit_reason::user_shutdown);
}

// A reconcile that asks for a build: the pass fails while the workflow_assembler throws, and the
// next pass (the controller's retry) gets the build.
TEST_F(BuildServices, AReconcilerRetriesWhenAServiceFailsAndThenGetsTheBuild) {
  auto gang_calls = std::make_shared<std::atomic<int>>(0);
  WorkflowAssemblerConfig gang_config;
  gang_config.assemble = [gang_calls](const api::Certification& cert,
                                      certification::ResolvedCategory resolved) {
    if (++*gang_calls == 1) throw std::runtime_error("injected gang crash");
    return certification::assemble_for_request(cert, std::move(resolved));
  };
  ServiceActors services{spawn_platform_detector(system_, {cache_}),
                         {spawn_catalog_resolver(system_)},
                         {spawn_workflow_assembler(system_, gang_config)}};
  const auto cert = certification_for("communication", "nccl-all-reduce");
  const certification::CategoryBuildRequest request{cert, cert.spec.categories.front(),
                                                    refs_of(nodes_)};
  auto seen = std::make_shared<std::optional<certification::CategoryBuildAnswer>>();

  ReconcilerConfig config;
  config.primary = {"nvcre.nvidia.com/v1alpha1", "Certification", "gpu-validation", "rack7"};
  config.cache = cache_;
  config.clock = [] { return k8s::Clock::now(); };
  config.services = services;
  config.build_timeout = 5s;
  config.reconcile = [request, seen](const reconcile::Context& context) {
    reconcile::Result result;
    auto answer = context.build_answers.find(reconcile::build_request_key(request));
    if (answer == context.build_answers.end()) {
      result.wanted_builds.push_back(request);
    } else {
      *seen = answer->second;
    }
    return result;
  };
  auto reconciler_actor_handle = self_->spawn(reconciler, std::move(config));
  auto [failed, e1] = ask<PassResult>(reconciler_actor_handle, reconcile_atom::value);
  ASSERT_TRUE(failed) << e1;
  EXPECT_NE(failed->error.find("asking services: workflow_assembler: injected gang crash"),
            std::string::npos)
      << failed->error;
  EXPECT_FALSE(seen->has_value());

  auto [succeeded, e2] = ask<PassResult>(reconciler_actor_handle, reconcile_atom::value);
  ASSERT_TRUE(succeeded) << e2;
  EXPECT_TRUE(succeeded->error.empty()) << succeeded->error;
  ASSERT_TRUE(seen->has_value());
  EXPECT_TRUE(std::holds_alternative<certification::CategoryBuild>(**seen));
  self_->send_exit(reconciler_actor_handle, caf::exit_reason::user_shutdown);
  self_->send_exit(services.detector, caf::exit_reason::user_shutdown);
  self_->send_exit(services.resolvers.front(), caf::exit_reason::user_shutdown);
  self_->send_exit(services.assemblers.front(), caf::exit_reason::user_shutdown);
}

// A reconcile that asks for a build and says how to go on: the pass resumes with the answer
// through that continuation, so the reconcile itself runs once (no second cache read and plan).
TEST_F(BuildServices, AReconcilerGoesOnFromTheAskWithTheAnswer) {
  ServiceActors services{spawn_platform_detector(system_, {cache_}),
                         {spawn_catalog_resolver(system_)},
                         {spawn_workflow_assembler(system_)}};
  const auto cert = certification_for("communication", "nccl-all-reduce");
  const certification::CategoryBuildRequest request{cert, cert.spec.categories.front(),
                                                    refs_of(nodes_)};
  auto seen = std::make_shared<std::optional<certification::CategoryBuildAnswer>>();
  auto plans = std::make_shared<std::atomic<int>>(0);

  ReconcilerConfig config;
  config.primary = {"nvcre.nvidia.com/v1alpha1", "Certification", "gpu-validation", "rack7"};
  config.cache = cache_;
  config.clock = [] { return k8s::Clock::now(); };
  config.services = services;
  config.build_timeout = 5s;
  config.reconcile = [request, seen, plans](const reconcile::Context&) {
    ++*plans;
    reconcile::Result result;
    result.wanted_builds.push_back(request);
    result.resume = [request, seen](const reconcile::BuildAnswers& answers) {
      auto answer = answers.find(reconcile::build_request_key(request));
      if (answer != answers.end()) *seen = answer->second;
      return reconcile::Result{};
    };
    return result;
  };
  auto reconciler_actor_handle = self_->spawn(reconciler, std::move(config));
  auto [done, error] = ask<PassResult>(reconciler_actor_handle, reconcile_atom::value);
  ASSERT_TRUE(done) << error;
  EXPECT_TRUE(done->error.empty()) << done->error;
  EXPECT_EQ(plans->load(), 1);
  ASSERT_TRUE(seen->has_value());
  EXPECT_TRUE(std::holds_alternative<certification::CategoryBuild>(**seen));
  self_->send_exit(reconciler_actor_handle, caf::exit_reason::user_shutdown);
  self_->send_exit(services.detector, caf::exit_reason::user_shutdown);
  self_->send_exit(services.resolvers.front(), caf::exit_reason::user_shutdown);
  self_->send_exit(services.assemblers.front(), caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace nvcre::actors
