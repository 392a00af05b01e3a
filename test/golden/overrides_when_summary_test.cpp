// Golden suite `when-summary` for nvcre::overrides::summarize_when and summarize_override_parts.
//   input.yaml  a list of items; an item is either {when: WhenSpec} or {override: OverrideSpec}
// Output: for each item, the input's `when` (as decoded and re-encoded) and its summary, plus the
// parts summary for overrides.
#include "api/codec.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"
#include "overrides/overrides.hpp"

#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
namespace api = nvcre::api;
using nvcre::testing::GoldenCase;

class WorkflowWhenSummary : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(WorkflowWhenSummary, Summarizes) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    json::array out;
    const json::value input = nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml"));
    for (const auto& item : input.as_array()) {
      const auto& object = item.as_object();
      if (const json::value* spec = object.if_contains("override")) {
        const auto override_spec = api::decode<api::OverrideSpec>(*spec, "override");
        out.push_back(
            json::object{{"when", api::encode(override_spec.when)},
                         {"summary", nvcre::overrides::summarize_when(override_spec.when)},
                         {"patches", nvcre::overrides::summarize_override_parts(override_spec)}});
      } else {
        const auto when = api::decode<api::WhenSpec>(object.at("when"), "when");
        out.push_back(json::object{{"when", api::encode(when)},
                                   {"summary", nvcre::overrides::summarize_when(when)}});
      }
    }
    return nvcre::jsonkit::to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(WorkflowWhenSummary, "when-summary");

}  // namespace
