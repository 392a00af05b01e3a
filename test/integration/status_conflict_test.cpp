// Conflict-retried status writes (k8s/status_update.hpp) against kube-sim: concurrent writers of
// one object's status lose no update, whether the 409s come from real races or from the fault
// plan. The object is a minimal custom resource with a status subresource and an integer
// status.count, so the test is about optimistic concurrency and nothing else.
#include "k8s/status_update.hpp"

#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

namespace nvcre::k8s {
namespace {

namespace json = boost::json;

const ResourceRef kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
const ResourceRef kNamespaces{"", "v1", "namespaces", false};
const ResourceRef kCounters{"it.nvcre.test", "v1", "counters", true};
const std::string kNamespace = "it";
const std::string kName = "shared";

const char* const kCounterCrd = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "counters.it.nvcre.test"},
  "spec": {"group": "it.nvcre.test", "scope": "Namespaced",
           "names": {"plural": "counters", "singular": "counter", "kind": "Counter"},
           "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                         "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                           "spec": {"type": "object", "properties": {"step": {"type": "integer"}}},
                           "status": {"type": "object", "properties": {"count": {"type": "integer"}}}}}}}]}})";

std::int64_t count_of(const json::value& object) {
  const auto* status = object.as_object().if_contains("status");
  if (!status || !status->is_object()) return 0;
  const auto* count = status->as_object().if_contains("count");
  return count && count->is_int64() ? count->as_int64() : 0;
}

bool increment(json::value& object) {
  const auto next = count_of(object) + 1;
  object.as_object()["status"] = json::object{{"count", next}};
  return true;
}

class StatusConflictIT : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = std::make_unique<sim::KubeSim>();
    sim_->start();
    client_ = std::make_unique<RestClient>(config());
    client_->create(kNamespaces, "", json::object{{"apiVersion", "v1"}, {"kind", "Namespace"},
                                                  {"metadata", json::object{{"name", kNamespace}}}});
    client_->create(kCrds, "", json::parse(kCounterCrd));
    client_->create(kCounters, kNamespace,
                    json::object{{"apiVersion", "it.nvcre.test/v1"},
                                 {"kind", "Counter"},
                                 {"metadata", json::object{{"name", kName}}},
                                 {"spec", json::object{{"step", 1}}}});
  }
  void TearDown() override {
    sim_->api().faults().set_plan({});
    client_.reset();
    sim_->stop();
  }

  ClientConfig config() const {
    ClientConfig config;
    config.server = sim_->url();
    config.rate_limit.qps = -1;
    return config;
  }
  std::int64_t count() { return count_of(client_->get(kCounters, kNamespace, kName)); }
  std::uint64_t conflicts_answered() { return sim_->api().request_log().requests("update", 409); }

  // `writers` threads, each with its own client, increment status.count `each` times at once.
  // Returns the attempts they needed in all.
  int hammer(int writers, int each, const ConflictRetry& retry) {
    std::atomic<int> attempts{0}, failures{0};
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w)
      threads.emplace_back([&] {
        RestClient client(config());
        while (!go) std::this_thread::yield();
        for (int i = 0; i < each; ++i) {
          try {
            attempts += update_status_with_retry(client, kCounters, kNamespace, kName, increment, retry).attempts;
          } catch (const std::exception& e) {
            ++failures;
            ADD_FAILURE() << e.what();
          }
        }
      });
    go = true;
    for (auto& t : threads) t.join();
    EXPECT_EQ(failures, 0);
    return attempts;
  }

  std::unique_ptr<sim::KubeSim> sim_;
  std::unique_ptr<RestClient> client_;
};

// Heavy contention on one object: many retries, generous bound, small jittered pauses.
const ConflictRetry kPatient{200, std::chrono::milliseconds(1), 1.0, 1.0};

TEST_F(StatusConflictIT, ConcurrentIncrementsLoseNoUpdate) {
  constexpr int kWriters = 6, kEach = 25;
  const int attempts = hammer(kWriters, kEach, kPatient);
  EXPECT_EQ(count(), kWriters * kEach);
  const auto conflicts = conflicts_answered();
  std::cout << "[ measured ] " << kWriters * kEach << " increments, " << attempts << " attempts, " << conflicts
            << " conflicts answered by kube-sim\n";
  EXPECT_GT(conflicts, 0u);  // the retry path really ran
  EXPECT_EQ(static_cast<std::uint64_t>(attempts - kWriters * kEach), conflicts);
}

TEST_F(StatusConflictIT, InjectedConflictsLoseNoUpdateEither) {
  sim::FaultPlan plan;
  plan.seed = 11;
  sim::VerbFaults faults;
  faults.errors.push_back(sim::ErrorRule{409, 0.3, 0});
  plan.verbs["update"] = faults;
  sim_->api().faults().set_plan(plan);

  constexpr int kWriters = 4, kEach = 20;
  const int attempts = hammer(kWriters, kEach, kPatient);
  sim_->api().faults().set_plan({});
  EXPECT_EQ(count(), kWriters * kEach);
  const auto injected = sim_->api().faults().counter("Conflict", sim::Verb::Update);
  std::cout << "[ measured ] " << kWriters * kEach << " increments, " << attempts << " attempts, " << injected
            << " injected conflicts, " << conflicts_answered() << " conflicts in all\n";
  EXPECT_GT(injected, 0u);
  EXPECT_EQ(static_cast<std::uint64_t>(attempts - kWriters * kEach), conflicts_answered());
}

TEST_F(StatusConflictIT, AWriteBetweenReadAndPutIsReappliedOnTopOfIt) {
  int calls = 0;
  auto result = update_status_with_retry(*client_, kCounters, kNamespace, kName, [&](json::value& object) {
    if (++calls == 1) {  // another writer gets in after our read
      client_->merge_patch_status(kCounters, kNamespace, kName, json::parse(R"({"status":{"count":100}})"));
    }
    return increment(object);
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_TRUE(result.written);
  EXPECT_EQ(count_of(result.object), 101);
  EXPECT_EQ(count(), 101);
  EXPECT_EQ(conflicts_answered(), 1u);
}

TEST_F(StatusConflictIT, ANoOpMutationWritesNothing) {
  const auto before = client_->get(kCounters, kNamespace, kName);
  const auto updates = sim_->api().request_log().requests("update", 200);
  auto result = update_status_with_retry(*client_, kCounters, kNamespace, kName, [](json::value&) { return false; });
  EXPECT_FALSE(result.written);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_EQ(sim_->api().request_log().requests("update", 200), updates);
  EXPECT_EQ(client_->get(kCounters, kNamespace, kName).at("metadata").at("resourceVersion"),
            before.at("metadata").at("resourceVersion"));
}

TEST_F(StatusConflictIT, RetriesAreBoundedAndTheLastConflictSurfaces) {
  sim::FaultPlan plan;
  plan.seed = 3;
  sim::VerbFaults faults;
  faults.errors.push_back(sim::ErrorRule{409, 1.0, 0});
  plan.verbs["update"] = faults;
  sim_->api().faults().set_plan(plan);
  try {
    update_status_with_retry(*client_, kCounters, kNamespace, kName, increment, ConflictRetry{3});
    ADD_FAILURE() << "no ApiError";
  } catch (const ApiError& e) {
    EXPECT_TRUE(is_conflict(e)) << e.what();
  }
  EXPECT_EQ(sim_->api().faults().counter("Conflict", sim::Verb::Update), 3u);
  sim_->api().faults().set_plan({});
  EXPECT_EQ(count(), 0);
}

TEST_F(StatusConflictIT, OtherErrorsAreNotRetried) {
  int calls = 0;
  try {
    update_status_with_retry(*client_, kCounters, kNamespace, "missing", [&](json::value& o) {
      ++calls;
      return increment(o);
    });
    ADD_FAILURE() << "no ApiError";
  } catch (const ApiError& e) {
    EXPECT_TRUE(is_not_found(e)) << e.what();
  }
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(sim_->api().request_log().requests("get", 404), 1u);
}

}  // namespace
}  // namespace nvcre::k8s
