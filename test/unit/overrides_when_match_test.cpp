// when-matching, the match context, dependency selection and the override events
//.
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "overrides/overrides.hpp"

#include <boost/json/parse.hpp>
#include <gtest/gtest.h>

namespace {

namespace api = nvcre::api;
namespace json = boost::json;

api::WhenSpec when_of(const char* yaml) {
  return api::decode<api::WhenSpec>(nvcre::jsonkit::parse_yaml(yaml));
}

nvcre::overrides::MatchContext aws_h100() {
  nvcre::overrides::MatchContext context;
  context.platform = "aws";
  context.gpu_architecture = "h100";
  context.workload_kind = "TrainJob";
  context.topology = {"topology", 2};
  return context;
}

TEST(WorkflowWhenMatch, MatchContextDerivesKindModeAndConfigFromTheSpec) {
  api::WorkflowSpec spec;
  nvcre::overrides::MatchContext context =
      nvcre::overrides::match_context_for(spec, "gcp", "gb200", 4);
  EXPECT_EQ(context.platform, "gcp");
  EXPECT_EQ(context.gpu_architecture, "gb200");
  EXPECT_EQ(context.workload_kind, "");
  EXPECT_EQ(context.topology.mode, "simple");
  EXPECT_EQ(context.topology.domain_count, 4);
  EXPECT_TRUE(context.config.is_null());

  spec.jobTemplate.spec.workload.trainJob = json::object{};
  spec.orchestration.topology = api::TopologySpec{"nvidia.com/gpu.clique", false};
  spec.validation = api::ValidationSpec{api::PerformanceValidationSpec{}};
  context = nvcre::overrides::match_context_for(spec, "", "unknown", 0);
  EXPECT_EQ(context.workload_kind, "TrainJob");
  EXPECT_EQ(context.topology.mode, "topology");
  EXPECT_TRUE(context.config.is_null()) << "performance without config keeps config null";

  spec.validation->performance->config = json::parse(R"({"tp":2})");
  EXPECT_EQ(nvcre::overrides::match_context_for(spec, "", "", 0).config,
            json::parse(R"({"tp":2})"));
}

TEST(WorkflowWhenMatch, EmptyWhenAlwaysMatches) {
  EXPECT_TRUE(nvcre::overrides::when_matches(api::WhenSpec{}, aws_h100()));
  EXPECT_TRUE(nvcre::overrides::when_matches(api::WhenSpec{}, nvcre::overrides::MatchContext{}));
  // Present but empty matchers impose nothing.
  EXPECT_TRUE(nvcre::overrides::when_matches(
      when_of("{platform: {}, gpuArchitecture: {in: []}, topology: {}}"), aws_h100()));
}

TEST(WorkflowWhenMatch, StringMatchersAreAnded) {
  const auto context = aws_h100();
  EXPECT_TRUE(nvcre::overrides::when_matches(
      when_of("{platform: {equals: aws, in: [aws, gcp], notIn: [oci]}}"), context));
  EXPECT_FALSE(
      nvcre::overrides::when_matches(when_of("{platform: {equals: aws, notIn: [aws]}}"), context));
  EXPECT_FALSE(nvcre::overrides::when_matches(when_of("{platform: {in: [gcp]}}"), context));
  EXPECT_FALSE(
      nvcre::overrides::when_matches(when_of("{gpuArchitecture: {equals: H100}}"), context))
      << "case-sensitive";
  EXPECT_TRUE(nvcre::overrides::when_matches(
      when_of("{gpuArchitecture: {notIn: [a100]}, platform: {equals: aws}}"), context));
}

TEST(WorkflowWhenMatch, UnknownPlatformOnlyMatchesNegativeOrExplicitConditions) {
  nvcre::overrides::MatchContext unknown;
  unknown.platform = "unknown";
  EXPECT_FALSE(nvcre::overrides::when_matches(when_of("{platform: {equals: aws}}"), unknown));
  EXPECT_TRUE(nvcre::overrides::when_matches(when_of("{platform: {notIn: [aws]}}"), unknown));
  EXPECT_TRUE(nvcre::overrides::when_matches(when_of("{platform: {equals: unknown}}"), unknown));
}

TEST(WorkflowWhenMatch, WorkloadKindAndTopology) {
  const auto context = aws_h100();
  EXPECT_TRUE(nvcre::overrides::when_matches(when_of("{workloadKind: TrainJob}"), context));
  EXPECT_FALSE(nvcre::overrides::when_matches(when_of("{workloadKind: PyTorchJob}"), context));
  EXPECT_TRUE(nvcre::overrides::when_matches(
      when_of("{topology: {mode: topology, domainCount: {equals: 2}}}"), context));
  EXPECT_FALSE(nvcre::overrides::when_matches(when_of("{topology: {mode: multi-rack}}"), context));
  EXPECT_FALSE(nvcre::overrides::when_matches(
      when_of("{topology: {domainCount: {greaterThan: 2}}}"), context))
      << "strict";
  EXPECT_FALSE(
      nvcre::overrides::when_matches(when_of("{topology: {domainCount: {lessThan: 2}}}"), context))
      << "strict";
  EXPECT_TRUE(nvcre::overrides::when_matches(
      when_of("{topology: {domainCount: {greaterThan: 1, lessThan: 3}}}"), context));
  EXPECT_TRUE(nvcre::overrides::when_matches(when_of("{topology: {domainCount: {equals: 0}}}"),
                                             nvcre::overrides::MatchContext{}))
      << "0 is a value";
}

TEST(WorkflowWhenMatch, ConfigIsASubsetMatch) {
  const json::value actual = json::parse(R"({"a":1,"m":{"x":"y","n":null},"l":[1,2]})");
  EXPECT_TRUE(nvcre::overrides::config_matches(json::parse("{}"), actual));
  EXPECT_TRUE(nvcre::overrides::config_matches(json::parse(R"({"a":1.0,"m":{"x":"y"}})"), actual));
  EXPECT_TRUE(nvcre::overrides::config_matches(json::parse(R"({"m":{"n":null}})"), actual));
  EXPECT_FALSE(nvcre::overrides::config_matches(json::parse(R"({"m":{"absent":null}})"), actual))
      << "null wants an explicit null";
  EXPECT_FALSE(nvcre::overrides::config_matches(json::parse(R"({"l":[1]})"), actual))
      << "lists are leaves";
  EXPECT_FALSE(nvcre::overrides::config_matches(json::parse(R"({"a":{"b":1}})"), actual));
  EXPECT_FALSE(nvcre::overrides::config_matches(json::parse("{}"), json::value(nullptr)))
      << "nil context config never matches";
  EXPECT_TRUE(nvcre::overrides::config_matches(json::parse("3"), json::parse("3")));

  auto context = aws_h100();
  EXPECT_FALSE(nvcre::overrides::when_matches(when_of("{config: {}}"), context));
  context.config = actual;
  EXPECT_TRUE(nvcre::overrides::when_matches(when_of("{config: {a: 1}, platform: {equals: aws}}"),
                                             context));
}

TEST(WorkflowWhenMatch, ExpressionIsCheckedEvenWhenAnotherConditionFails) {
  const auto context = aws_h100();
  EXPECT_TRUE(
      nvcre::overrides::when_matches(when_of("{expression: \"domainCount == 2\"}"), context));
  EXPECT_FALSE(nvcre::overrides::when_matches(
      when_of("{platform: {equals: gcp}, expression: \"true\"}"), context));
  EXPECT_FALSE(nvcre::overrides::when_matches(
      when_of("{platform: {equals: aws}, expression: \"false\"}"), context));
  EXPECT_THROW(
      nvcre::overrides::when_matches(
          when_of("{platform: {equals: gcp}, expression: \"size(platform) > 0\"}"), context),
      nvcre::overrides::OverrideError);
}

TEST(WorkflowWhenMatch, SelectDependenciesFiltersByOwnWhenAndNamesTheCulprit) {
  const auto spec = api::decode<api::WorkflowSpec>(nvcre::jsonkit::parse_yaml(R"(
dependencies:
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: always}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: gcp-only}, when: {platform: {equals: gcp}}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: aws-only}, when: {platform: {equals: aws}}}
)"));
  const auto selected = nvcre::overrides::select_dependencies(spec.dependencies, aws_h100());
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_EQ(selected[0], spec.dependencies[0]);
  EXPECT_EQ(selected[1], spec.dependencies[2]);

  auto broken = spec.dependencies;
  broken[1].when.expression = "platform";
  try {
    nvcre::overrides::select_dependencies(broken, aws_h100());
    FAIL() << "expected OverrideError";
  } catch (const nvcre::overrides::OverrideError& error) {
    EXPECT_EQ(
        std::string(error.what())
            .rfind("dependency[1] (ConfigMap/gcp-only): evaluating when: unsupported CEL construct",
                   0),
        0u)
        << error.what();
  }
}

TEST(WorkflowWhenMatch, EventsPerAppliedOverrideOrNoneMatched) {
  const std::vector<api::AppliedOverride> applied = {{0, "platform=aws", "jobTemplate", false},
                                                     {2, "<always>", "none", true}};
  const auto events = nvcre::overrides::override_events(applied, 3, aws_h100());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0],
            (nvcre::overrides::OverrideEvent{"Normal", "OverrideApplied",
                                             "Override 0 (platform=aws) applied: jobTemplate"}));
  EXPECT_EQ(
      events[1],
      (nvcre::overrides::OverrideEvent{
          "Warning", "OverrideNoOp",
          "Override 2 (<always>) matched but produced no changes — check field paths (none)"}));

  const auto none = nvcre::overrides::override_events({}, 4, aws_h100());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0], (nvcre::overrides::OverrideEvent{
                         "Normal", "NoOverridesMatched",
                         "0 of 4 overrides matched (platform=aws, gpuArchitecture=h100)"}));
  EXPECT_TRUE(nvcre::overrides::override_events({}, 0, aws_h100()).empty())
      << "no overrides, nothing to say";

  EXPECT_EQ(nvcre::overrides::override_failure_message(
                nvcre::overrides::OverrideError("override[1]: jobTemplate: x")),
            "Failed to apply overrides: override[1]: jobTemplate: x");
}

TEST(WorkflowWhenMatch, ResolveKeepsOverridesAndLeavesTheInputAlone) {
  const auto spec = api::decode<api::WorkflowSpec>(nvcre::jsonkit::parse_yaml(R"(
jobTemplate: {spec: {stallMultiplier: 2}}
orchestration: {}
overrides:
  - when: {platform: {equals: aws}}
    jobTemplate: {spec: {stallMultiplier: 3}}
)"));
  const auto copy = spec;
  const auto resolved = nvcre::overrides::resolve_overrides(spec, aws_h100());
  EXPECT_EQ(spec, copy);
  EXPECT_EQ(resolved.spec.overrides, spec.overrides);
  EXPECT_EQ(resolved.spec.jobTemplate.spec.stallMultiplier, 3);
  // Resolving the resolved spec again is idempotent for a merge-only override.
  EXPECT_EQ(nvcre::overrides::resolve_overrides(resolved.spec, aws_h100()).spec, resolved.spec);
}

}  // namespace
