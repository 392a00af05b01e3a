// The node health rule (job/node_health_rule.hpp): any boolean CEL expression over `node`, with
// the fields monitors read present even on a Node that lacks them, and the messages of a rule
// that cannot run.
#include "job/node_health_rule.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

namespace json = boost::json;
using nvcre::job::NodeHealthRule;
using nvcre::job::NodeHealthRuleError;

const json::value kBareNode = json::parse(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "gpu-node-01"}})");

const json::value kSickNode = json::parse(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "gpu-node-05", "labels": {"nvidia.com/gpu.product": "H100"},
                 "annotations": {"example.com/last-xid": "79"}},
    "spec": {"unschedulable": true,
             "taints": [{"key": "nvidia.com/gpu-unhealthy", "effect": "NoSchedule"}]},
    "status": {"conditions": [{"type": "Ready", "status": "True"},
                              {"type": "GPUHealthy", "status": "False"}],
               "capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "7"}}})");

bool unhealthy(const std::string& expression, const json::value& node) {
  return NodeHealthRule::compile(expression).unhealthy(node);
}

TEST(JobNodeHealthRule, DefaultsMakeAbsentFieldsEmptyNotErrors) {
  const std::vector<std::string> rules = {
      "node.spec.unschedulable == true",
      "node.status.conditions.exists(c, c.type == 'GPUHealthy' && c.status == 'False')",
      "node.spec.taints.exists(t, t.key == 'nvidia.com/gpu-unhealthy')",
      "'example.com/last-xid' in node.metadata.annotations",
      "has(node.metadata.labels.unhealthy)",
      "size(node.status.addresses) > 0",
      "'nvidia.com/gpu' in node.status.capacity && node.status.capacity['nvidia.com/gpu'] != "
      "node.status.allocatable['nvidia.com/gpu']",
  };
  for (const auto& rule : rules) {
    EXPECT_FALSE(unhealthy(rule, kBareNode)) << rule;
  }
  for (const auto& rule : std::vector<std::string>(rules.begin(), rules.begin() + 4)) {
    EXPECT_TRUE(unhealthy(rule, kSickNode)) << rule;
  }
  EXPECT_TRUE(unhealthy(rules.back(), kSickNode));
}

TEST(JobNodeHealthRule, ThePresentValueWinsOverTheDefault) {
  const json::value node = json::parse(R"({"metadata": null, "spec": {"unschedulable": true}})");
  EXPECT_TRUE(unhealthy("node.spec.unschedulable && size(node.metadata.labels) == 0", node));
}

TEST(JobNodeHealthRule, AnExpressionFailingOnANodeThrowsAnEvaluationError) {
  const auto rule = NodeHealthRule::compile("node.metadata.labels['health'] == 'bad'");
  try {
    rule.unhealthy(kBareNode);
    FAIL() << "no error";
  } catch (const nvcre::cel::Error& error) {
    EXPECT_EQ(error.kind(), nvcre::cel::Error::Kind::Evaluation);
    EXPECT_EQ(error.detail(), "no such key: health");
  }
}

TEST(JobNodeHealthRule, ARuleThatCannotRunIsRefusedNamingTheConstruct) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"node.metadata.name", "CEL expression must return bool, got dyn"},
      {"size(node.spec.taints)", "CEL expression must return bool, got int"},
      {"node.metadata.creationTimestamp < timestamp('2026-01-01T00:00:00Z')",
       "CEL compilation error: unsupported CEL construct \"timestamp\" at position 35 (unknown "
       "function); supported: the variable node (the Node object); "},
      {"nodes.exists(n, true)", "CEL compilation error: unsupported CEL construct \"nodes\""},
      {"node.spec.taints.exists(t, size(t))", "(exists() needs a bool condition, got int)"},
      {"node.metadata.name.matches('[')", "(invalid RE2 regular expression: missing ]: [)"},
      {"node.spec.unschedulable ==", "CEL compilation error: CEL syntax error at position 27"},
  };
  for (const auto& [expression, expected] : cases) {
    try {
      NodeHealthRule::compile(expression);
      ADD_FAILURE() << expression << ": no error";
    } catch (const NodeHealthRuleError& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
          << expression << "\n  got: " << error.what();
    }
  }
}

}  // namespace
