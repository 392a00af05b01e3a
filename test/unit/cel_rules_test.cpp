// The C++ implementations of the CRDs' CEL rules (R1-R16), their shape checks, and the guarantee
// that every rule in deploy/crds has an implementation.
#include "api/cel_rules.hpp"
#include "api/schema.hpp"
#include "api/validation.hpp"
#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <functional>

namespace json = boost::json;
using namespace nvcre::api;
using namespace nvcre::jsonkit;

namespace {

std::shared_ptr<SchemaNode> node_of(std::string type) {
  auto node = std::make_shared<SchemaNode>();
  node->type = std::move(type);
  return node;
}

std::shared_ptr<SchemaNode> string_map() {
  auto node = node_of("object");
  node->additional_properties = node_of("string");
  return node;
}

std::shared_ptr<SchemaNode> quantity_node() {
  auto node = node_of("");
  node->int_or_string = true;
  return node;
}

std::shared_ptr<SchemaNode> object_with(
    std::initializer_list<std::pair<std::string, std::shared_ptr<SchemaNode>>> fields) {
  auto node = node_of("object");
  for (const auto& [name, child] : fields) node->properties[name] = child;
  return node;
}

std::shared_ptr<SchemaNode> resources_node() {
  auto list = object_with({{"cpu", quantity_node()}, {"memory", quantity_node()}});
  return object_with({{"requests", list}, {"limits", list}});
}

// Evaluates `rule` (compiled against `node`) on YAML values; "true"/"false"/"error: ...".
std::string eval(std::string_view rule, const SchemaNode& node, const std::string& self,
                 const std::string& old_self = "") {
  auto program = compile_cel_rule(rule, node);
  const json::value value = parse_yaml(self);
  const json::value old_value = old_self.empty() ? json::value() : parse_yaml(old_self);
  auto result = program->evaluate(value, old_self.empty() ? nullptr : &old_value);
  switch (result.kind) {
    case CelEvaluation::Kind::True:
      return "true";
    case CelEvaluation::Kind::False:
      return "false";
    case CelEvaluation::Kind::Error:
      return "error: " + result.error;
  }
  return "?";
}

constexpr std::string_view kR2 = "!self.contains('/') || self.split('/')[0].size() <= 253";
constexpr std::string_view kR3 =
    "self != 'app.kubernetes.io/managed-by' && !self.startsWith('nvcre.nvidia.com/')";
constexpr std::string_view kR4 =
    "self.all(k, k != 'app.kubernetes.io/managed-by' && !k.startsWith('nvcre.nvidia.com/'))";
constexpr std::string_view kR5 =
    "self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$'))";
constexpr std::string_view kR6 = "self.all(k, !k.contains('/') || k.split('/')[0].size() <= 253)";
constexpr std::string_view kR7 =
    "!self.startsWith('kubernetes.io/') && !self.startsWith('k8s.io/') && "
    "!self.split('/')[0].endsWith('.kubernetes.io') && !self.split('/')[0].endsWith('.k8s.io')";
constexpr std::string_view kR8 = "!quantity(string(self)).isLessThan(quantity('0'))";
constexpr std::string_view kR9 =
    "!has(self.requests) || !has(self.limits) || !has(self.requests.cpu) || !has(self.limits.cpu) "
    "|| "
    "quantity(string(self.requests.cpu)).compareTo(quantity(string(self.limits.cpu))) <= 0";
constexpr std::string_view kR10 =
    "!has(self.requests) || !has(self.limits) || !has(self.requests.memory) || "
    "!has(self.limits.memory) || "
    "quantity(string(self.requests.memory)).compareTo(quantity(string(self.limits.memory))) <= 0";
constexpr std::string_view kR11 = "!(has(self.script) && has(self.module))";
constexpr std::string_view kR12 = "has(self.script) || has(self.module)";
constexpr std::string_view kR13 = "!(has(self.inline) && has(self.configMapRef))";

std::string repeat(char c, std::size_t n) { return std::string(n, c); }

}  // namespace

TEST(CelRules, SelfEqualsOldSelfIsDeepEquality) {
  auto node = node_of("object");
  EXPECT_EQ(eval("self == oldSelf", *node, "{a: 1, b: [x, {c: d}]}", "{b: [x, {c: d}], a: 1.0}"),
            "true");
  EXPECT_EQ(eval("self == oldSelf", *node, "{a: 1, b: [x]}", "{a: 1, b: [x, y]}"), "false");
  EXPECT_EQ(eval("self == oldSelf", *node, "{a: {}}", "{a: {b: null}}"), "false");
  EXPECT_TRUE(compile_cel_rule("self == oldSelf", *node)->uses_old_self);
}

TEST(CelRules, PresencePinning) {
  auto node = object_with({{"workloadMetadata", node_of("object")}});
  const std::string rule = "has(self.workloadMetadata) == has(oldSelf.workloadMetadata)";
  EXPECT_EQ(eval(rule, *node, "{workloadMetadata: {}}", "{workloadMetadata: {labels: {a: b}}}"),
            "true");
  EXPECT_EQ(eval(rule, *node, "{}", "{other: 1}"), "true");
  EXPECT_EQ(eval(rule, *node, "{workloadMetadata: {}}", "{x: 1}"), "false");
  EXPECT_EQ(eval(rule, *node, "{x: 1}", "{workloadMetadata: {}}"), "false");
  EXPECT_THROW(compile_cel_rule("has(self.other) == has(oldSelf.other)", *node),
               std::invalid_argument);
  EXPECT_THROW(compile_cel_rule("has(self.workloadMetadata) == has(oldSelf.other)", *node),
               std::invalid_argument);
}

// One rule (and one message) pins several fields: any of them added or removed fails it.
TEST(CelRules, PresencePinningOfSeveralFields) {
  auto node = object_with({{"a", node_of("object")}, {"b", node_of("object")}});
  const std::string rule = "has(self.a) == has(oldSelf.a) && has(self.b) == has(oldSelf.b)";
  EXPECT_TRUE(compile_cel_rule(rule, *node)->uses_old_self);
  EXPECT_EQ(eval(rule, *node, "{a: {}, b: {}}", "{a: {x: 1}, b: {}}"), "true");
  EXPECT_EQ(eval(rule, *node, "{}", "{}"), "true");
  EXPECT_EQ(eval(rule, *node, "{a: {}}", "{a: {}, b: {}}"), "false");
  EXPECT_EQ(eval(rule, *node, "{a: {}, b: {}}", "{b: {}}"), "false");
  EXPECT_THROW(compile_cel_rule(rule + " && has(self.c) == has(oldSelf.c)", *node),
               std::invalid_argument);
  EXPECT_THROW(
      compile_cel_rule("has(self.a) == has(oldSelf.a) && has(self.b) == has(oldSelf.a)", *node),
      std::invalid_argument);
  // A conjunction with anything else is not this shape (and not a rule we implement).
  EXPECT_THROW(compile_cel_rule("has(self.a) == has(oldSelf.a) && self.b == oldSelf.b", *node),
               std::invalid_argument);
}

TEST(CelRules, QueueLabelKeyPrefixLength) {
  auto node = node_of("string");
  EXPECT_EQ(eval(kR2, *node, "runai/queue"), "true");
  EXPECT_EQ(eval(kR2, *node, "''"), "true");
  EXPECT_EQ(eval(kR2, *node, repeat('a', 300)), "true");  // no '/': the pattern limits the name
  EXPECT_EQ(eval(kR2, *node, repeat('a', 253) + "/q"), "true");
  EXPECT_EQ(eval(kR2, *node, repeat('a', 254) + "/q"), "false");
  EXPECT_THROW(compile_cel_rule(kR2, *node_of("object")), std::invalid_argument);
}

TEST(CelRules, QueueLabelKeyReserved) {
  auto node = node_of("string");
  EXPECT_EQ(eval(kR3, *node, "kai.scheduler/queue"), "true");
  EXPECT_EQ(eval(kR3, *node, "app.kubernetes.io/managed-by"), "false");
  EXPECT_EQ(eval(kR3, *node, "nvcre.nvidia.com/x"), "false");
  EXPECT_EQ(eval(kR3, *node, "app.kubernetes.io/name"), "true");
}

TEST(CelRules, WorkloadLabelKeys) {
  auto node = string_map();
  EXPECT_EQ(eval(kR4, *node, "{kueue.x-k8s.io/queue-name: q, team: a}"), "true");
  EXPECT_EQ(eval(kR4, *node, "{app.kubernetes.io/managed-by: x}"), "false");
  EXPECT_EQ(eval(kR4, *node, "{nvcre.nvidia.com/anything: x}"), "false");
  EXPECT_EQ(eval(kR4, *node, "{}"), "true");

  EXPECT_EQ(eval(kR5, *node, "{a.b-c/Name_1.x: v, simple: v}"), "true");
  EXPECT_EQ(eval(kR5, *node, "{'bad key': v}"), "false");
  EXPECT_EQ(eval(kR5, *node, "{a/b/c: v}"), "false");
  EXPECT_EQ(eval(kR5, *node, "{" + repeat('n', 63) + ": v}"), "true");
  EXPECT_EQ(eval(kR5, *node, "{" + repeat('n', 64) + ": v}"), "false");
  EXPECT_EQ(eval(kR5, *node, "{Upper.example.com/x: v}"), "false");  // prefix must be lower case

  EXPECT_EQ(eval(kR6, *node, "{" + repeat('p', 253) + "/x: v}"), "true");
  EXPECT_EQ(eval(kR6, *node, "{" + repeat('p', 254) + "/x: v}"), "false");
  EXPECT_EQ(eval(kR6, *node, "{" + repeat('p', 300) + ": v}"), "true");
  EXPECT_THROW(compile_cel_rule(kR4, *node_of("string")), std::invalid_argument);
}

TEST(CelRules, NicResourceNameDomains) {
  auto node = node_of("string");
  EXPECT_EQ(eval(kR7, *node, "nvidia.com/mlnxnics"), "true");
  EXPECT_EQ(eval(kR7, *node, "rdma/ib"), "true");
  EXPECT_EQ(eval(kR7, *node, "kubernetes.io/nic"), "false");
  EXPECT_EQ(eval(kR7, *node, "k8s.io/nic"), "false");
  EXPECT_EQ(eval(kR7, *node, "foo.kubernetes.io/nic"), "false");
  EXPECT_EQ(eval(kR7, *node, "sub.k8s.io/nic"), "false");
  EXPECT_EQ(eval(kR7, *node, "notk8s.io/nic"), "true");
}

TEST(CelRules, NonNegativeQuantity) {
  auto node = quantity_node();
  EXPECT_EQ(eval(kR8, *node, "'0'"), "true");
  EXPECT_EQ(eval(kR8, *node, "64"), "true");
  EXPECT_EQ(eval(kR8, *node, "500Gi"), "true");
  EXPECT_EQ(eval(kR8, *node, "'-1'"), "false");
  EXPECT_EQ(eval(kR8, *node, "-2"), "false");
  EXPECT_EQ(eval(kR8, *node, "-2.0"), "false");
  EXPECT_EQ(eval(kR8, *node, "-500m"), "false");
  EXPECT_EQ(eval(kR8, *node, "lots"),
            "error: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(eval(kR8, *node, "12Qi"),
            "error: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(eval(kR8, *node, "12Mm"), "error: unable to parse quantity's suffix");
  EXPECT_EQ(eval(kR8, *node, "1.2.3"),
            "error: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_THROW(compile_cel_rule(kR8, *node_of("object")), std::invalid_argument);
}

TEST(CelRules, RequestsWithinLimits) {
  auto node = resources_node();
  EXPECT_EQ(eval(kR9, *node, "{requests: {cpu: '16'}, limits: {cpu: '32'}}"), "true");
  EXPECT_EQ(eval(kR9, *node, "{requests: {cpu: 32}, limits: {cpu: '32'}}"), "true");
  EXPECT_EQ(eval(kR9, *node, "{requests: {cpu: 33}, limits: {cpu: 32}}"), "false");
  EXPECT_EQ(eval(kR9, *node, "{requests: {cpu: 1500m}, limits: {cpu: '1'}}"), "false");
  EXPECT_EQ(eval(kR9, *node, "{requests: {cpu: '64'}}"), "true");
  EXPECT_EQ(eval(kR9, *node, "{requests: {memory: 1Gi}, limits: {cpu: '1'}}"), "true");
  EXPECT_EQ(eval(kR10, *node, "{requests: {memory: 1Gi}, limits: {memory: 1024Mi}}"), "true");
  EXPECT_EQ(eval(kR10, *node, "{requests: {memory: 2Gi}, limits: {memory: 2G}}"), "false");
  EXPECT_EQ(eval(kR10, *node, "{requests: {memory: x}, limits: {memory: 2G}}").rfind("error: ", 0),
            0u);
  EXPECT_THROW(compile_cel_rule(kR9, *object_with({{"requests", node_of("object")}})),
               std::invalid_argument);
}

TEST(CelRules, Unions) {
  auto torch = object_with(
      {{"script", node_of("string")}, {"module", node_of("string")}, {"args", node_of("array")}});
  EXPECT_EQ(eval(kR11, *torch, "{script: a}"), "true");
  EXPECT_EQ(eval(kR11, *torch, "{script: a, module: b}"), "false");
  EXPECT_EQ(eval(kR12, *torch, "{module: b}"), "true");
  EXPECT_EQ(eval(kR12, *torch, "{args: [x]}"), "false");
  auto config = object_with({{"inline", node_of("object")}, {"configMapRef", node_of("object")}});
  EXPECT_EQ(eval(kR13, *config, "{inline: {a: b}}"), "true");
  EXPECT_EQ(eval(kR13, *config, "{inline: {}, configMapRef: {name: c}}"), "false");
  EXPECT_THROW(compile_cel_rule(kR13, *torch), std::invalid_argument);
}

TEST(CelRules, RegistryHoldsTheVerbatimRules) {
  const auto texts = registered_cel_rules();
  for (auto rule : {kR2, kR3, kR4, kR5, kR6, kR7, kR8, kR9, kR10, kR11, kR12, kR13}) {
    EXPECT_NE(std::find(texts.begin(), texts.end(), rule), texts.end()) << rule;
  }
}

TEST(CelRules, UnknownRuleFailsTheCrdLoadNamingCrdPathAndRule) {
  SchemaRegistry registry;
  const auto crd = parse_yaml(R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.test.example.com}
spec:
  group: test.example.com
  names: {kind: Thing, plural: things}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              items:
                type: array
                items:
                  type: object
                  properties:
                    name:
                      type: string
                      x-kubernetes-validations:
                      - {rule: "self.size() > 2", message: too short}
)");
  try {
    registry.add_crd(crd);
    FAIL() << "an unknown rule must fail the load";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(
        error.what(),
        "CRD things.test.example.com (v1): schema at spec.items[*].name: x-kubernetes-validations "
        "rule "
        "cannot be evaluated (no C++ implementation is registered for this rule): self.size() > 2");
  }
}

// Every rule in deploy/crds has an implementation: the embedded CRDs load.
TEST(CelRules, EveryEmbeddedCrdLoads) {
  ASSERT_FALSE(embedded_crd_files().empty());
  const SchemaRegistry* registry = nullptr;
  ASSERT_NO_THROW(registry = &SchemaRegistry::builtin());
  for (const char* kind : {"Certification", "WorkloadRun", "Workflow", "Job"}) {
    EXPECT_NE(registry->find("nvcre.nvidia.com/v1alpha1", kind), nullptr) << kind;
  }
  std::size_t rules = 0;
  std::function<void(const SchemaNode&)> count = [&](const SchemaNode& node) {
    rules += node.rules.size();
    for (const auto& entry : node.properties) count(*entry.second);
    if (node.additional_properties) count(*node.additional_properties);
    if (node.items) count(*node.items);
  };
  for (const auto& schema : registry->schemas()) count(*schema.root);
  EXPECT_GT(rules, 0u);
}

namespace {

constexpr std::string_view kTimeoutRange =
    "duration(self) >= duration('1s') && duration(self) <= duration('5m')";
constexpr std::string_view kBackoffOrder =
    "!has(self.maxBackoff) || !has(self.initialBackoff) || "
    "duration(self.maxBackoff) >= duration(self.initialBackoff)";

}  // namespace

TEST(CelRules, DurationRangeIsInclusiveAndReadsGoDurations) {
  const auto node = node_of("string");
  EXPECT_EQ(eval(kTimeoutRange, *node, "1s"), "true");
  EXPECT_EQ(eval(kTimeoutRange, *node, "5m"), "true");
  EXPECT_EQ(eval(kTimeoutRange, *node, "2m30s"), "true");
  EXPECT_EQ(eval(kTimeoutRange, *node, "999ms"), "false");
  EXPECT_EQ(eval(kTimeoutRange, *node, "5m1s"), "false");
  EXPECT_EQ(eval(kTimeoutRange, *node, "ten seconds"),
            "error: type conversion error from 'string' to 'google.protobuf.Duration'");
  // The bounds are read from the rule, not fixed.
  EXPECT_EQ(
      eval("duration(self) >= duration('1h') && duration(self) <= duration('8760h')", *node, "30m"),
      "false");
  EXPECT_THROW(compile_cel_rule(kTimeoutRange, *node_of("integer")), std::invalid_argument);
  EXPECT_THROW(compile_cel_rule(
                   "duration(self) >= duration('x') && duration(self) <= duration('5m')", *node),
               std::invalid_argument);
}

TEST(CelRules, BackoffMayNotShrink) {
  const auto node =
      object_with({{"initialBackoff", node_of("string")}, {"maxBackoff", node_of("string")}});
  EXPECT_EQ(eval(kBackoffOrder, *node, "{initialBackoff: 10s, maxBackoff: 15m}"), "true");
  EXPECT_EQ(eval(kBackoffOrder, *node, "{initialBackoff: 1m, maxBackoff: 60s}"), "true");
  EXPECT_EQ(eval(kBackoffOrder, *node, "{initialBackoff: 2m, maxBackoff: 30s}"), "false");
  EXPECT_EQ(eval(kBackoffOrder, *node, "{initialBackoff: 2m}"), "true");
  EXPECT_THROW(compile_cel_rule(kBackoffOrder, *object_with({{"maxBackoff", node_of("string")}})),
               std::invalid_argument);
}
