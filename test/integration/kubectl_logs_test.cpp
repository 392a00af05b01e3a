// The real `kubectl logs` against kube-sim: container choice, --timestamps, --since-time, --since,
// --tail, --limit-bytes and --previous answered as a kubelet does, the API server's errors, a
// capture replayed through PUT /sim/logs, and the simulated Trainer's nccl-tests output.
#include "kubectl_support.hpp"

#include <re2/re2.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace nvcre::sim::testing {
namespace {

class KubeSimKubectlLogs : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override {
    options.api.cluster = parse_cluster_profile("aws:h100:2");
    options.api.trainer.enabled = true;
    options.api.trainer.step = std::chrono::milliseconds(0);
  }

  void SetUp() override {
    KubectlTest::SetUp();
    auto created = kubectl_stdin("create -f -",
                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                                 "  containers:\n"
                                 "  - {name: node, image: busybox}\n"
                                 "  - {name: sidecar, image: busybox}\n");
    ASSERT_EQ(created.exit_code, 0) << created.output;
  }

  // PUT /sim/logs/default/<pod>?container=<container> with `text`, through kubectl.
  void replay(const std::string& pod, const std::string& container, const std::string& text) {
    const auto file = dir_ / ("replay-" + container + ".txt");
    std::ofstream(file) << text;
    auto result = kubectl("replace --raw '/sim/logs/default/" + pod + "?container=" + container +
                          "' -f " + file.string());
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_TRUE(contains(result.output, "\"container\":\"" + container + "\"")) << result.output;
  }

  static constexpr const char* kLog =
      "2026-12-03T12:00:01Z first\n"
      "2026-12-03T12:00:02.5Z second\n"
      "2026-12-03T14:00:03+02:00 third line here\n";
};

TEST_F(KubeSimKubectlLogs, TimestampsSinceTimeTailAndLimitBytes) {
  replay("p", "node", kLog);
  replay("p", "sidecar", "sidecar says hi\n");

  auto all = kubectl("logs p -c node --timestamps");
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_EQ(all.output,
            "2026-12-03T12:00:01.000000000Z first\n"
            "2026-12-03T12:00:02.500000000Z second\n"
            "2026-12-03T12:00:03.000000000Z third line here\n");

  auto since = kubectl("logs p -c node --timestamps --since-time=2026-12-03T12:00:02Z");
  ASSERT_EQ(since.exit_code, 0) << since.output;
  EXPECT_EQ(since.output,
            "2026-12-03T12:00:02.500000000Z second\n"
            "2026-12-03T12:00:03.000000000Z third line here\n");

  auto tail = kubectl("logs p -c node --tail=2");
  EXPECT_EQ(tail.output, "second\nthird line here\n");

  // The byte limit cuts mid-line, timestamps included.
  auto limited = kubectl("logs p -c node --timestamps --limit-bytes=36");
  EXPECT_EQ(limited.output, "2026-12-03T12:00:01.000000000Z first");

  auto combined =
      kubectl("logs p -c node --since-time=2026-12-03T12:00:02Z --tail=1 --limit-bytes=5");
  EXPECT_EQ(combined.output, "third");

  // Every line is hours old.
  auto recent = kubectl("logs p -c node --since=1m");
  EXPECT_EQ(recent.exit_code, 0) << recent.output;
  EXPECT_EQ(recent.output, "");

  auto sidecar = kubectl("logs p -c sidecar");
  EXPECT_EQ(sidecar.output, "sidecar says hi\n");
  // Without -c kubectl picks the first container and says so.
  auto defaulted = kubectl("logs p");
  EXPECT_TRUE(contains(defaulted.output, "first\nsecond\nthird line here\n")) << defaulted.output;
}

TEST_F(KubeSimKubectlLogs, ErrorsAreTheApiServers) {
  auto previous = kubectl("logs p -c node --previous");
  EXPECT_NE(previous.exit_code, 0);
  EXPECT_TRUE(contains(previous.output,
                       "Error from server (BadRequest): previous terminated "
                       "container \"node\" in pod \"p\" not found"))
      << previous.output;

  auto missing = kubectl("logs nobody");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_TRUE(contains(missing.output, "pods \"nobody\" not found")) << missing.output;

  auto bad_time = kubectl(
      "get --raw '/api/v1/namespaces/default/pods/p/log?container=node&"
      "sinceTime=noon'");
  EXPECT_NE(bad_time.exit_code, 0);
  EXPECT_TRUE(contains(bad_time.output, "Error from server (BadRequest): parsing time \"noon\""))
      << bad_time.output;

  auto ambiguous = kubectl("get --raw '/api/v1/namespaces/default/pods/p/log'");
  EXPECT_TRUE(contains(ambiguous.output,
                       "a container name must be specified for pod p, choose "
                       "one of: [node sidecar]"))
      << ambiguous.output;

  auto negative = kubectl(
      "get --raw '/api/v1/namespaces/default/pods/p/log?container=node&"
      "limitBytes=-1'");
  EXPECT_TRUE(contains(negative.output, "limitBytes: Invalid value: -1: must be greater than 0"))
      << negative.output;
}

TEST_F(KubeSimKubectlLogs, TheTrainersNcclTestsTableReadsBack) {
  create_crds();
  auto runtime = kubectl_stdin(
      "create -f -",
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\n"
      "metadata: {name: nccl, namespace: default}\n"
      "spec:\n  mlPolicy: {numNodes: 2}\n  template:\n    spec:\n      replicatedJobs:\n"
      "      - name: node\n        template:\n          metadata:\n            labels:\n"
      "              trainer.kubeflow.org/trainjob-ancestor-step: trainer\n"
      "          spec:\n            template:\n              spec:\n                containers:\n"
      "                - name: node\n                  image: nccl-tests\n"
      "                  command: [all_reduce_perf, -b, 1M, -e, 64M, -f, '2']\n"
      "                  resources: {limits: {nvidia.com/gpu: '8'}}\n");
  ASSERT_EQ(runtime.exit_code, 0) << runtime.output;
  auto job = kubectl_stdin("create -f -",
                           "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
                           "metadata: {name: sweep, namespace: default}\n"
                           "spec:\n  runtimeRef: {apiGroup: trainer.kubeflow.org, kind: "
                           "TrainingRuntime, name: nccl}\n");
  ASSERT_EQ(job.exit_code, 0) << job.output;
  std::string state;
  for (int i = 0; i < 100 && state != "Complete"; ++i) {
    state = kubectl("get trainjob sweep -o jsonpath={.status.conditions[0].type}").output;
    if (state != "Complete") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(state, "Complete");
  const std::string pod =
      kubectl(
          "get pods -l jobset.sigs.k8s.io/jobset-name=sweep,batch.kubernetes.io/"
          "job-completion-index=0 -o jsonpath={.items[0].metadata.name}")
          .output;
  ASSERT_FALSE(pod.empty());

  auto log = kubectl("logs " + pod + " --timestamps");
  ASSERT_EQ(log.exit_code, 0) << log.output;
  const RE2 stamped(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z (.*)$)");
  const RE2 row(R"(^\s*(\d+)\s+\d+\s+\w+\s+\w+\s+-?\d+\s+[\d.]+\s+([\d.]+)\s+([\d.]+))");
  std::istringstream lines(log.output);
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    std::string text;
    ASSERT_TRUE(RE2::FullMatch(line, stamped, &text)) << line;
    rows += RE2::PartialMatch(text, row) ? 1 : 0;
  }
  EXPECT_EQ(rows, 7);  // 1M .. 64M
  EXPECT_TRUE(contains(log.output, "# Avg bus bandwidth    : ")) << log.output;
  EXPECT_TRUE(contains(log.output, "NCCL INFO Using network AWS Libfabric")) << log.output;
  auto last = kubectl("logs " + pod + " --tail=1");
  EXPECT_EQ(last.output, "#\n");
}

}  // namespace
}  // namespace nvcre::sim::testing
