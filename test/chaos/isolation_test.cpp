// Failure isolation (ARCHITECTURE.md "Failure isolation per object"): 200 Certifications run at
// once on the real manager while the reconcile of one of them throws on every attempt. The other
// 199 reach their verdicts (Succeeded on healthy nodes, Failed on the one faulty node), and the
// broken one is reported on itself (a ReconcileError Warning event carrying the exception text),
// is retried with backoff and never reaches a verdict. Nothing else is blamed for its crash.
#include "chaos_fixture.hpp"

#include <atomic>
#include <iostream>
#include <stdexcept>

namespace nvcre::chaos {
namespace {

// Each Certification runs on one node (round robin), so the 200 share 40 nodes in 5 waves. A
// half-second Trainer step keeps kube-sim's Trainer polling (every step/5) cheap on 2 cores.
constexpr int kNodes = 40;
constexpr auto kTrainerStep = std::chrono::milliseconds(500);
constexpr int kCertificationCount = 200;  // including the broken one
const std::string kBroken = "broken";
const std::string kInjected = "chaos: injected reconcile crash";
// The faulty node's Certifications are expected to fail, the rest to succeed.
constexpr int kFaultyNode = kNodes - 1;

std::string name_of(const reconcile::Context& context) {
  if (context.object == nullptr) return {};
  return std::string(context.object->at("metadata").at("name").as_string());
}

TEST(ChaosIsolation, OneCrashingReconcilerDoesNotStopTheOther199) {
  nvcre::manager::EmbeddedCluster cluster(
      cluster_options("aws:h100:" + std::to_string(kNodes), kTrainerStep,
                      {node_name(kFaultyNode) + "=XID 79: GPU has fallen off the bus"}));
  cluster.start();
  auto& client = cluster.client();

  // The Certification controller's reconcile, wrapped: it throws for the broken one only.
  auto options = cluster.manager_options("chaos-isolation");
  auto broken_attempts = std::make_shared<std::atomic<int>>(0);
  bool wrapped = false;
  for (auto& spec : options.controllers) {
    if (spec.kind != "Certification") continue;
    spec.reconcile = [inner = spec.reconcile, broken_attempts](const reconcile::Context& context) {
      if (name_of(context) == kBroken) {
        ++*broken_attempts;
        throw std::runtime_error(kInjected + " for " + kNamespace + "/" + kBroken);
      }
      return inner(context);
    };
    wrapped = true;
  }
  ASSERT_TRUE(wrapped) << "no Certification controller in the manager's options";

  actors::Manager manager(std::move(options));
  manager.start();

  std::map<std::string, std::string> expected;  // name -> expected verdict type
  const auto started = Clock::now();
  client.create(kCertifications, kNamespace, certification(kBroken, {node_name(0)}));
  for (int i = 1; i < kCertificationCount; ++i) {
    const std::string name = "cert-" + std::to_string(i);
    const int node = i % kNodes;
    expected[name] = node == kFaultyNode ? "Failed" : "Succeeded";
    client.create(kCertifications, kNamespace, certification(name, {node_name(node)}));
  }
  std::set<std::string> others;
  for (const auto& [name, type] : expected) others.insert(name);

  // Liveness bound only: about 25 s on an idle 2-core machine, far more when it is busy.
  std::map<std::string, Verdict> all;
  const bool finished = eventually(
      [&] {
        all = verdicts(client);
        return count_with_verdict(all, others) == others.size();
      },
      std::chrono::seconds(180), std::chrono::milliseconds(250));
  const double elapsed = seconds_since(started);
  std::cout << "[chaos] isolation: " << count_with_verdict(all, others) << "/" << others.size()
            << " Certifications reached a verdict in " << elapsed << " s; broken one reconciled "
            << broken_attempts->load() << " times\n";
  EXPECT_TRUE(finished);

  int succeeded = 0, failed = 0;
  for (const auto& [name, type] : expected) {
    const Verdict& v = all[name];
    EXPECT_EQ(v.type, type) << name << ": " << v.reason << ": " << v.message;
    if (v.type == "Succeeded") {
      ++succeeded;
      EXPECT_EQ(v.reason, "AllWorkflowsSucceeded") << name;
    } else if (v.type == "Failed") {
      ++failed;
      EXPECT_EQ(v.reason, "WorkflowFailed") << name << ": " << v.message;
    }
  }
  std::cout << "[chaos] isolation: " << succeeded << " Succeeded, " << failed
            << " Failed (faulty node " << node_name(kFaultyNode) << ")\n";

  // The broken one: reported on itself, with the exception's text, and never judged.
  bool reported = false;
  std::string note;
  ASSERT_TRUE(eventually(
      [&] {
        const json::value events = client.list(kEvents, kNamespace);
        for (const auto& event : events.at("items").as_array()) {
          if (event.at("reason") != "ReconcileError") continue;
          const std::string regarding(event.at("regarding").at("name").as_string());
          // Isolation: no other object is blamed for the crash.
          EXPECT_EQ(regarding, kBroken) << json::serialize(event);
          if (regarding != kBroken) continue;
          EXPECT_EQ(event.at("type"), "Warning");
          EXPECT_EQ(event.at("regarding").at("kind"), "Certification");
          note = std::string(event.at("note").as_string());
          reported = true;
        }
        return reported;
      },
      std::chrono::seconds(10)));
  EXPECT_NE(note.find(kInjected + " for " + kNamespace + "/" + kBroken), std::string::npos) << note;
  std::cout << "[chaos] isolation: event on " << kBroken << ": " << note << "\n";

  EXPECT_GE(broken_attempts->load(), 2) << "the broken one was not retried";
  const json::value broken = client.get(kCertifications, kNamespace, kBroken);
  const Verdict v = verdict_of(broken);
  EXPECT_TRUE(v.type.empty()) << v.type << ": " << v.reason;
  // Every attempt threw before it planned anything: no Workflow names it as owner.
  const json::value workflows = client.list(kWorkflows, kNamespace);
  for (const auto& workflow : workflows.at("items").as_array()) {
    const auto* owners = workflow.at("metadata").as_object().if_contains("ownerReferences");
    if (owners == nullptr) continue;
    for (const auto& owner : owners->as_array())
      EXPECT_NE(owner.at("name").as_string(), kBroken) << json::serialize(workflow);
  }

  manager.stop();
}

}  // namespace
}  // namespace nvcre::chaos
