// The real kubectl reading what kube-sim prints server-side (meta.k8s.io Tables: CRD printer
// columns, the node and pod columns with -o wide) and the Events the controller records through
// events.k8s.io/v1, as `kubectl get events` and `kubectl describe` show them.
#include "kubectl_support.hpp"

#include "sim/cluster_profile.hpp"

#include <boost/json.hpp>

#include <sstream>

namespace nvcre::sim::testing {
namespace {

namespace json = boost::json;

class KubectlTables : public KubectlTest {
 protected:
  void configure(KubeSimOptions& options) override {
    options.api.cluster = parse_cluster_profile("aws:h100:2");
  }

  void SetUp() override {
    KubectlTest::SetUp();
    create_crds();
    create_namespace("gpu-validation");
    auto applied = kubectl("apply -f " + source("examples/certification.yaml"));
    ASSERT_EQ(applied.exit_code, 0) << applied.output;
  }

  std::string ok(const std::string& args) const {
    auto result = kubectl(args);
    EXPECT_EQ(result.exit_code, 0) << "kubectl " << args << "\n" << result.output;
    return result.output;
  }

  // The whitespace-separated words of the output line that starts with `first`.
  static std::vector<std::string> row(const std::string& output, const std::string& first) {
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      std::vector<std::string> out;
      for (std::string word; words >> word;) out.push_back(word);
      if (!out.empty() && out.front() == first) return out;
    }
    return {};
  }
};

TEST_F(KubectlTables, CertificationsShowTheirPrinterColumns) {
  auto before = ok("get certifications -n gpu-validation");
  EXPECT_EQ(row(before, "NAME"), (std::vector<std::string>{"NAME", "STATUS", "REASON", "AGE"}))
      << before;
  ok("patch certification rack7-burnin -n gpu-validation --subresource=status --type=merge -p "
     "'{\"status\":{\"conditions\":[{\"type\":\"Running\",\"status\":\"False\",\"reason\":\"Idle\","
     "\"message\":\"m\",\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"},{\"type\":\"Ready\","
     "\"status\":\"True\",\"reason\":\"AllNodesPassed\",\"message\":\"m\","
     "\"lastTransitionTime\":\"2026-01-01T00:00:00Z\"}]}}'");
  auto after = ok("get certifications -n gpu-validation");
  auto cells = row(after, "rack7-burnin");
  ASSERT_EQ(cells.size(), 4u) << after;
  EXPECT_EQ(cells[1], "Ready") << "the first condition whose status is True";
  EXPECT_EQ(cells[2], "AllNodesPassed");
  EXPECT_TRUE(cells[3].ends_with("s")) << "an age in seconds: " << cells[3];
  // The same columns over a watch, and none of them for machine-readable output.
  auto watched = kubectl("get certifications -n gpu-validation --watch --request-timeout=2s");
  EXPECT_EQ(row(watched.output, "rack7-burnin").size(), 4u) << watched.output;
  EXPECT_EQ(
      parse_json(kubectl("get certification rack7-burnin -n gpu-validation -o json")).at("kind"),
      "Certification");
}

TEST_F(KubectlTables, NodesAndPodsWide) {
  const std::string ip = ok(
      "get node gpu-node-00 -o 'jsonpath={.status.addresses[?(@.type==\"InternalIP\")].address}'");
  ASSERT_FALSE(ip.empty());
  auto nodes = ok("get nodes");
  EXPECT_EQ(row(nodes, "NAME"),
            (std::vector<std::string>{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}));
  auto wide = ok("get nodes -o wide");
  EXPECT_TRUE(contains(wide, "INTERNAL-IP   EXTERNAL-IP   OS-IMAGE")) << wide;
  auto node = row(wide, "gpu-node-00");
  ASSERT_GE(node.size(), 7u) << wide;
  EXPECT_EQ(node[1], "Ready");
  EXPECT_EQ(node[5], ip);

  auto created = kubectl_stdin("create -f -", R"(apiVersion: v1
kind: Pod
metadata: {name: worker-0, namespace: gpu-validation}
spec:
  nodeName: gpu-node-01
  containers: [{name: main, image: busybox}]
)");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  ok("patch pod worker-0 -n gpu-validation --subresource=status --type=merge -p "
     "'{\"status\":{\"phase\":\"Running\",\"podIP\":\"10.8.0.7\",\"containerStatuses\":[{"
     "\"name\":\"main\",\"ready\":true,\"restartCount\":2,\"image\":\"busybox\",\"imageID\":\"\","
     "\"state\":{\"running\":{\"startedAt\":\"2026-01-01T00:00:00Z\"}}}]}}'");
  auto pods = ok("get pods -n gpu-validation -o wide");
  EXPECT_EQ(row(pods, "NAME"),
            (std::vector<std::string>{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                                      "NOMINATED", "NODE", "READINESS", "GATES"}))
      << pods;
  auto pod = row(pods, "worker-0");
  ASSERT_EQ(pod.size(), 9u) << pods;
  EXPECT_EQ(pod[1], "1/1");
  EXPECT_EQ(pod[2], "Running");
  EXPECT_EQ(pod[3], "2");
  EXPECT_EQ(pod[5], "10.8.0.7");
  EXPECT_EQ(pod[6], "gpu-node-01");
  EXPECT_EQ(pod[7], "<none>");
}

TEST_F(KubectlTables, RecordedEventsShowInGetEventsAndDescribe) {
  const std::string uid =
      ok("get certification rack7-burnin -n gpu-validation -o jsonpath={.metadata.uid}");
  // What the controller's event recorder writes (events.k8s.io/v1).
  auto recorded = kubectl_stdin("create -f -", R"({"apiVersion": "events.k8s.io/v1",
  "kind": "Event",
  "metadata": {"name": "rack7-burnin.181d2", "namespace": "gpu-validation"},
  "eventTime": "2026-12-03T10:00:00.000000Z",
  "reportingController": "nvcre.nvidia.com/certification-controller",
  "reportingInstance": "nvcre-manager-0",
  "action": "PhaseChanged", "reason": "PhaseChanged", "type": "Normal",
  "note": "Certification moved to phase Running",
  "regarding": {"apiVersion": "nvcre.nvidia.com/v1alpha1", "kind": "Certification",
                "name": "rack7-burnin", "namespace": "gpu-validation", "uid": ")" +
                                                   uid + R"("}})");
  ASSERT_EQ(recorded.exit_code, 0) << recorded.output;

  auto events = ok("get events -n gpu-validation");
  EXPECT_EQ(row(events, "LAST"),
            (std::vector<std::string>{"LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}))
      << events;
  EXPECT_TRUE(contains(events,
                       "Normal   PhaseChanged   certification/rack7-burnin   "
                       "Certification moved to phase Running"))
      << events;
  auto core = parse_json(kubectl("get events.v1. -n gpu-validation -o json"));
  ASSERT_EQ(core.at("items").as_array().size(), 1u);
  const auto& event = core.at("items").at(0);
  EXPECT_EQ(event.at("apiVersion"), "v1");
  EXPECT_EQ(event.at("message"), "Certification moved to phase Running");
  EXPECT_EQ(event.at("involvedObject").at("uid").as_string(), uid);
  EXPECT_EQ(event.at("reportingComponent"), "nvcre.nvidia.com/certification-controller");

  auto described = ok("describe certification rack7-burnin -n gpu-validation");
  EXPECT_FALSE(contains(described, "Events:  <none>")) << described;
  EXPECT_TRUE(contains(described, "Normal  PhaseChanged")) << described;
  EXPECT_TRUE(contains(described, "nvcre.nvidia.com/certification-controller")) << described;
  EXPECT_TRUE(contains(described, "Certification moved to phase Running")) << described;

  // A core v1 Event reads back through events.k8s.io/v1 with the new field names.
  auto legacy = kubectl_stdin("create -f -", R"(apiVersion: v1
kind: Event
metadata: {name: rack7-burnin.legacy, namespace: gpu-validation}
involvedObject: {kind: Certification, name: rack7-burnin, namespace: gpu-validation}
reason: Legacy
message: written by an old recorder
source: {component: old-recorder}
type: Warning
)");
  ASSERT_EQ(legacy.exit_code, 0) << legacy.output;
  auto modern = parse_json(
      kubectl("get events.v1.events.k8s.io rack7-burnin.legacy -n gpu-validation -o json"));
  EXPECT_EQ(modern.at("apiVersion"), "events.k8s.io/v1");
  EXPECT_EQ(modern.at("note"), "written by an old recorder");
  EXPECT_EQ(modern.at("regarding").at("name"), "rack7-burnin");
  EXPECT_EQ(modern.at("deprecatedSource").at("component"), "old-recorder");
}

}  // namespace
}  // namespace nvcre::sim::testing
