// Golden suite `json-patch` for workflow::apply_json_patch (RFC 6902).
//   input_document.json  the target document
//   input_patch.json     the operation list
// Output: the patched document; negative cases hold an `error` file.
#include "api/yaml_json.hpp"
#include "test/support/golden.hpp"
#include "workflow/json_patch.hpp"

#include <gtest/gtest.h>

namespace {

namespace api = nvcre::api;
using nvcre::testing::GoldenCase;

class WorkflowJsonPatch : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(WorkflowJsonPatch, Applies) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const boost::json::value document = api::parse_yaml(golden_case.input("input_document.json"));
    const boost::json::value patch = api::parse_yaml(golden_case.input("input_patch.json"));
    return api::to_pretty_json(nvcre::workflow::apply_json_patch(document, patch));
  });
}

NVCRE_GOLDEN_SUITE(WorkflowJsonPatch, "json-patch");

}  // namespace
