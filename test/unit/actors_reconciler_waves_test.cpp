// The reconciler shell carries out a plan's actions in order, except that an action marked
// joins_previous goes out together with the one before it: both are sent before either answers,
// the next action waits for both, and the first failure in plan order is the one fed back. A
// create's AlreadyExists (with its holder) stays known for the rest of the pass.
#include "actors/reconciler.hpp"

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <mutex>
#include <set>

namespace nvcre::actors {
namespace {

using namespace std::chrono_literals;

// An API server that answers at once, except that it holds the calls on names starting with
// "held-" until two of them wait, then answers both: a call sent only after the first one was
// answered would wait forever (the pass times out).
struct FakeApi {
  std::mutex mutex;
  std::vector<std::string> log;        // "sent <name>" / "answered <name>", in order
  std::map<std::string, int> failing;  // name -> HTTP code to answer with
  std::set<std::string> existing;      // creates of these answer AlreadyExists; gets find them
  std::vector<std::pair<k8s::Action, caf::typed_response_promise<k8s::ActionResult>>> held;

  k8s::ActionResult answer_for(const k8s::Action& action) {
    const std::string& name = action.target.name;
    k8s::ActionResult result;
    if (existing.contains(name)) {
      if (action.verb == k8s::ActionVerb::Create) {
        result.code = 409;
        result.reason = "AlreadyExists";
      } else if (action.verb == k8s::ActionVerb::LiveGet) {
        result.object = boost::json::object{{"metadata", {{"name", name}}}};
      }
    }
    if (auto it = failing.find(name); it != failing.end()) {
      result.code = it->second;
      result.reason = "InternalError";
      result.message = "injected";
    }
    log.push_back("answered " + name);
    return result;
  }
};

api_client_actor::behavior_type fake_api(api_client_actor::pointer self,
                                         std::shared_ptr<FakeApi> api) {
  return {
      [=](execute_atom, const k8s::Action& action) -> caf::result<k8s::ActionResult> {
        std::lock_guard lock(api->mutex);
        const std::string& name = action.target.name;
        api->log.push_back("sent " + name);
        if (!name.starts_with("held-")) return api->answer_for(action);
        api->held.emplace_back(action, self->make_response_promise<k8s::ActionResult>());
        auto promise = api->held.back().second;
        if (api->held.size() == 2) {
          for (auto& [held_action, held_promise] : api->held)
            held_promise.deliver(api->answer_for(held_action));
          api->held.clear();
        }
        return promise;
      },
      [](pod_log_atom, const reconcile::PodLogWant&) { return reconcile::PodLogAnswer{}; },
  };
}

k8s::Action write_to(const std::string& name, bool joins_previous = false) {
  auto action =
      k8s::make_action(k8s::ActionVerb::MergePatch, k8s::ObjectRef{"v1", "ConfigMap", "ns", name},
                       boost::json::object{{"data", boost::json::object{{"k", "v"}}}});
  action.joins_previous = joins_previous;
  return action;
}

class ReconcilerWaves : public ::testing::Test {
 protected:
  ReconcilerWaves() : system_(config_), self_(system_) {}

  // One pass of `reconcile`; the error text when it did not answer.
  std::pair<std::optional<PassResult>, std::string> pass(reconcile::Function reconcile,
                                                         std::chrono::milliseconds deadline = 5s) {
    ReconcilerConfig config;
    config.primary = {"v1", "ConfigMap", "ns", "primary"};
    config.reconcile = std::move(reconcile);
    config.cache = std::make_shared<SharedCache>();
    auto api = system_.spawn(fake_api, api_);
    config.api = api;
    config.clock = [] { return k8s::Clock::now(); };
    auto handle = self_->spawn(reconciler, std::move(config));
    std::optional<PassResult> result;
    std::string error;
    self_->request(handle, deadline, reconcile_atom::value)
        .receive([&](PassResult& r) { result = std::move(r); },
                 [&](caf::error& e) { error = system_.render(e); });
    self_->send_exit(handle, caf::exit_reason::user_shutdown);
    self_->send_exit(api, caf::exit_reason::user_shutdown);
    return {std::move(result), error};
  }

  std::vector<std::string> log() {
    std::lock_guard lock(api_->mutex);
    return api_->log;
  }

  std::shared_ptr<FakeApi> api_ = std::make_shared<FakeApi>();
  caf::actor_system_config config_;
  caf::actor_system system_;
  caf::scoped_actor self_;
};

TEST_F(ReconcilerWaves, JoinedActionsGoOutTogetherAndTheNextWaitsForBoth) {
  auto [result, error] = pass([](const reconcile::Context&) {
    reconcile::Result r;
    r.plan.actions = {write_to("first"), write_to("held-a"), write_to("held-b", true),
                      write_to("last")};
    return r;
  });
  ASSERT_TRUE(result) << error;
  EXPECT_TRUE(result->error.empty()) << result->error;
  EXPECT_EQ(log(), (std::vector<std::string>{"sent first", "answered first", "sent held-a",
                                             "sent held-b", "answered held-a", "answered held-b",
                                             "sent last", "answered last"}));
}

TEST_F(ReconcilerWaves, WithoutJoiningTheSecondWaitsForTheFirst) {
  // The control case: unmarked, held-b is sent only after held-a answers, which never happens.
  auto [result, error] = pass(
      [](const reconcile::Context&) {
        reconcile::Result r;
        r.plan.actions = {write_to("held-a"), write_to("held-b")};
        return r;
      },
      500ms);
  EXPECT_FALSE(result);
  EXPECT_EQ(log(), (std::vector<std::string>{"sent held-a"}));
}

TEST_F(ReconcilerWaves, TheFirstFailureInPlanOrderIsFedBackAndNothingAfterTheWaveRuns) {
  api_->failing = {{"held-a", 500}, {"held-b", 503}};
  std::vector<std::string> outcomes;
  auto [result, error] = pass([&outcomes](const reconcile::Context& context) {
    reconcile::Result r;
    if (context.outcome) {
      outcomes.push_back(context.outcome->action.target.name + " " +
                         std::to_string(context.outcome->code));
      r.plan.error = "gave up after " + context.outcome->action.target.name;
      return r;
    }
    r.plan.actions = {write_to("held-a"), write_to("held-b", true), write_to("after")};
    return r;
  });
  ASSERT_TRUE(result) << error;
  EXPECT_EQ(outcomes, (std::vector<std::string>{"held-a 500"}));
  EXPECT_EQ(result->error, "gave up after held-a");
  EXPECT_EQ(log(), (std::vector<std::string>{"sent held-a", "sent held-b", "answered held-a",
                                             "answered held-b"}));
}

// Two children that both exist already (a crash lost the status that recorded them): the plan
// adopts each on its AlreadyExists, one after the other. When the second AlreadyExists made the
// pass forget the first, the next plan created the first again, and the plans alternated between
// the two until the pass gave up ("did not settle"), in every pass, for ever.
TEST_F(ReconcilerWaves, AnAlreadyExistsStaysKnownForTheRestOfThePass) {
  api_->existing = {"child-a", "child-b"};
  auto [result, error] = pass([](const reconcile::Context& context) {
    reconcile::Result r;
    for (const char* name : {"child-a", "child-b"}) {
      const k8s::ObjectRef child{"v1", "ConfigMap", "ns", name};
      const auto* outcome = reconcile::outcome_of(context, k8s::ActionVerb::Create, child);
      if (outcome != nullptr && outcome->reason == "AlreadyExists" && outcome->live_holder)
        continue;  // adopted
      r.plan.actions.push_back(
          k8s::make_action(k8s::ActionVerb::Create, child, boost::json::object{}));
      return r;
    }
    r.plan.actions.push_back(write_to("adopted-both"));
    return r;
  });
  ASSERT_TRUE(result) << error;
  EXPECT_TRUE(result->error.empty()) << result->error;
  EXPECT_EQ(log(), (std::vector<std::string>{"sent child-a", "answered child-a", "sent child-a",
                                             "answered child-a", "sent child-b", "answered child-b",
                                             "sent child-b", "answered child-b",
                                             "sent adopted-both", "answered adopted-both"}));
}

}  // namespace
}  // namespace nvcre::actors
