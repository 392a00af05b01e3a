// Golden suite `json-patch` for nvcre::jsonkit::apply_json_patch (RFC 6902).
//   input_document.json  the target document
//   input_patch.json     the operation list
// Output: the patched document; negative cases hold an `error` file.
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"
#include "jsonkit/json_patch.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::testing::GoldenCase;

class WorkflowJsonPatch : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(WorkflowJsonPatch, Applies) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const boost::json::value document =
        nvcre::jsonkit::parse_yaml(golden_case.input("input_document.json"));
    const boost::json::value patch =
        nvcre::jsonkit::parse_yaml(golden_case.input("input_patch.json"));
    return nvcre::jsonkit::to_pretty_json(nvcre::jsonkit::apply_json_patch(document, patch));
  });
}

NVCRE_GOLDEN_SUITE(WorkflowJsonPatch, "json-patch");

}  // namespace
