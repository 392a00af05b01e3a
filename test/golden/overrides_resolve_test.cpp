// Golden suite `override-resolve` for workflow/overrides.hpp.
//   input_workflow.yaml  a WorkflowSpec (with `overrides` and, optionally, dependency `when`s)
//   input_context.yaml   {platform, gpuArchitecture, domainCount} fed to match_context_for, plus
//                        optional workloadKind / topologyMode / config that then replace what
//                        match_context_for derived (to reach contexts a spec alone cannot express)
// Output: the context used, the applied-override records, the events, the dependencies selected by
// their own `when` (kind/name), and the resolved spec without `overrides` (checked separately to be
// kept as given). Negative cases hold an `error` file with the expected message substring.
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"
#include "overrides/overrides.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
using nvcre::testing::GoldenCase;

std::string string_at(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

nvcre::overrides::MatchContext context_from(const api::WorkflowSpec& spec,
                                            const json::object& input) {
  const json::value* count = input.if_contains("domainCount");
  nvcre::overrides::MatchContext context = nvcre::overrides::match_context_for(
      spec, string_at(input, "platform"), string_at(input, "gpuArchitecture"),
      count != nullptr ? count->as_int64() : 0);
  if (input.contains("workloadKind")) context.workload_kind = string_at(input, "workloadKind");
  if (input.contains("topologyMode")) context.topology.mode = string_at(input, "topologyMode");
  if (const json::value* config = input.if_contains("config")) context.config = *config;
  return context;
}

json::object context_json(const nvcre::overrides::MatchContext& context) {
  return {{"platform", context.platform},
          {"gpuArchitecture", context.gpu_architecture},
          {"workloadKind", context.workload_kind},
          {"topologyMode", context.topology.mode},
          {"domainCount", context.topology.domain_count},
          {"config", context.config}};
}

std::string dependency_label(const api::DependencySpec& dependency) {
  const json::value* metadata = dependency.resource.if_contains("metadata");
  return string_at(dependency.resource, "kind") + "/" +
         (metadata != nullptr && metadata->is_object() ? string_at(metadata->as_object(), "name")
                                                       : std::string());
}

class WorkflowOverrideResolve : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(WorkflowOverrideResolve, Resolves) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto spec = api::decode<api::WorkflowSpec>(
        nvcre::jsonkit::parse_yaml(golden_case.input("input_workflow.yaml")), "spec");
    const auto context = context_from(
        spec, nvcre::jsonkit::parse_yaml(golden_case.input("input_context.yaml")).as_object());

    const nvcre::overrides::ResolvedOverrides resolved =
        nvcre::overrides::resolve_overrides(spec, context);
    EXPECT_EQ(resolved.spec.overrides, spec.overrides)
        << "resolve_overrides must keep spec.overrides as given";

    json::array events;
    for (const auto& event :
         nvcre::overrides::override_events(resolved.applied, spec.overrides.size(), context)) {
      events.push_back(
          json::object{{"type", event.type}, {"reason", event.reason}, {"message", event.message}});
    }
    json::array selected;
    for (const auto& dependency :
         nvcre::overrides::select_dependencies(resolved.spec.dependencies, context)) {
      selected.push_back(json::value(dependency_label(dependency)));
    }
    api::WorkflowSpec shown = resolved.spec;
    shown.overrides.clear();

    json::object out;
    out["context"] = context_json(context);
    out["applied"] = api::encode(resolved.applied);
    out["events"] = std::move(events);
    out["selectedDependencies"] = std::move(selected);
    out["spec"] = api::encode(shown);
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(WorkflowOverrideResolve, "override-resolve");

}  // namespace
