// Transient is not terminal: with 80 % of the Workflow creates and half of the TrainingRuntime
// (dependency) creates answered 503 by kube-sim, every Certification still succeeds. The refused
// creates are retried with backoff and recorded as Warning events; nothing is created twice.
#include "chaos_fixture.hpp"

#include "sim/fault_plan.hpp"

#include <iostream>

namespace nvcre::chaos {
namespace {

constexpr int kNodes = 8;
constexpr int kCertificationCount = 6;

TEST(ChaosTransientFaults, RefusedCreatesThatARetryCuresEndInSuccess) {
  nvcre::manager::EmbeddedCluster cluster(
      cluster_options("aws:h100:" + std::to_string(kNodes), std::chrono::milliseconds(100)));
  cluster.start();
  auto& faults = cluster.sim().api().faults();
  // Each refused create doubles the Certification's retry delay (5 ms * 2^n, as client-go's
  // limiter) until one succeeds: 15 refusals in a row already wait about 3 minutes. At 0.8 that
  // happened to one of the six about one run in five; at 0.6 it is about one in 300, and a run
  // with no refused Workflow create at all (0.4^6) about one in 250.
  faults.set_plan(sim::parse_fault_plan(R"(seed: 11
verbs:
  create:
    errors:
    - {code: 503, rate: 0.6, resource: workflows}
    - {code: 503, rate: 0.5, resource: trainingruntimes}
)"));
  actors::Manager manager(cluster.manager_options("chaos-transient"));
  manager.start();
  auto& client = cluster.client();

  std::set<std::string> names;
  const auto started = Clock::now();
  for (int i = 0; i < kCertificationCount; ++i) {
    names.insert("cert-" + std::to_string(i));
    client.create(kCertifications, kNamespace, certification("cert-" + std::to_string(i)));
  }
  std::map<std::string, Verdict> all;
  ASSERT_TRUE(eventually(
      [&] {
        all = verdicts(client);
        return count_with_verdict(all, names) == names.size();
      },
      std::chrono::seconds(180), std::chrono::milliseconds(100)))
      << count_with_verdict(all, names) << "/" << names.size()
      << " Certifications reached a verdict";
  const auto refused = faults.counter("ServiceUnavailable", sim::Verb::Create);
  std::cout << "[chaos] transient: " << names.size() << " Certifications done after "
            << seconds_since(started) << " s; " << refused << " creates answered 503\n";
  for (const auto& name : names)
    EXPECT_EQ(all[name].type, "Succeeded")
        << name << ": " << all[name].reason << ": " << all[name].message;
  EXPECT_GT(refused, 0u) << "the plan refused nothing: the test tested nothing";

  std::set<std::string> warnings;
  const json::value events = client.list(kEvents, kNamespace);
  for (const auto& event : events.at("items").as_array())
    if (event.at("type") == "Warning") warnings.insert(std::string(event.at("reason").as_string()));
  // At 60 %, no Workflow create refused at all has odds of 0.4^6.
  EXPECT_TRUE(warnings.count("WorkflowCreationError"))
      << "no Warning event says a Workflow create is being retried";
  manager.stop();
  faults.set_plan(sim::parse_fault_plan("seed: 1\n"));
  expect_every_child_created_once(cluster, "transient", kCertificationCount, kNodes, refused);
}

}  // namespace
}  // namespace nvcre::chaos
