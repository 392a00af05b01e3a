// The API-server actor's worker pool against an in-process kube-sim: a request goes to an idle
// worker, so fast calls are not held behind a slow one while another worker is free.
#include "actors/api_client.hpp"

#include "k8s/rest_client.hpp"
#include "sim/fault_plan.hpp"
#include "sim/kube_sim.hpp"
#include "test/support/eventually.hpp"

#include <boost/json.hpp>
#include <caf/all.hpp>
#include <gtest/gtest.h>

#include <mutex>

namespace nvcre::actors {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(ApiServerPool, FastCallsAreNotHeldBehindASlowOneWhileAWorkerIsIdle) {
  sim::KubeSim sim;
  sim.start();
  k8s::ClientConfig client_config;
  client_config.server = sim.url();
  client_config.rate_limit.qps = -1;
  auto client = std::make_shared<k8s::RestClient>(client_config, k8s::RestClientOptions{});
  // Every create answers after 1.5 s (an injected delay: kube-sim keeps serving meanwhile).
  sim.api().faults().set_plan(
      sim::parse_fault_plan("seed: 1\nverbs:\n  create:\n    latency: {fixedMs: 1500}\n"));

  caf::actor_system_config config;
  caf::actor_system system(config);
  auto api = spawn_api_client(system, ApiClientConfig{client, nullptr, 2, std::nullopt});

  std::vector<std::pair<std::string, k8s::Action>> calls;
  calls.push_back({"create", k8s::make_action(k8s::ActionVerb::Create,
                                              k8s::ObjectRef{"v1", "Namespace", "", "slow"},
                                              json::object{{"apiVersion", "v1"},
                                                           {"kind", "Namespace"},
                                                           {"metadata", {{"name", "slow"}}}})});
  for (int i = 0; i < 6; ++i)
    calls.push_back({"get-" + std::to_string(i),
                     k8s::live_get(k8s::ObjectRef{"v1", "Namespace", "", "default"})});

  std::mutex mutex;
  std::vector<std::string> answered;  // labels in answer order, each with its HTTP code
  system.spawn([&, calls](caf::event_based_actor* self) {
    for (const auto& [label, action] : calls) {
      self->request(api, 30s, execute_atom::value, action)
          .then([&, label = label](k8s::ActionResult& result) {
            std::lock_guard lock(mutex);
            answered.push_back(label + " " + std::to_string(result.code));
          });
    }
  });
  ASSERT_TRUE(test::eventually([&] {
    std::lock_guard lock(mutex);
    return answered.size() == calls.size();
  }));
  // With two workers and one held by the create, the other serves all six reads; handed out
  // round-robin, every second read waited 1.5 s for the create to finish first.
  std::lock_guard lock(mutex);
  EXPECT_EQ(answered.back(), "create 200") << ::testing::PrintToString(answered);
  for (std::size_t i = 0; i + 1 < answered.size(); ++i)
    EXPECT_TRUE(answered[i].starts_with("get-")) << answered[i];
  caf::anon_send_exit(api, caf::exit_reason::user_shutdown);
  sim.stop();
}

}  // namespace
}  // namespace nvcre::actors
