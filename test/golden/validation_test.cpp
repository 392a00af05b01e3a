// Admission golden suites, the C++ counterparts of NVCRE's envtest validation and immutability
// tests: what kube-apiserver answers when the object is created (and then updated).
//   validation/<case>/input.yaml                       -> {"accepted", "causes"}
//   immutability/<case>/input_create.yaml + input_update.yaml -> {"create": ..., "update": ...}
#include "api/validation.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <stdexcept>

namespace {

using nvcre::api::causes_to_json;
using nvcre::jsonkit::parse_yaml;
using nvcre::jsonkit::to_pretty_json;
using nvcre::testing::GoldenCase;

class ValidationGolden : public ::testing::TestWithParam<GoldenCase> {};
class ImmutabilityGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ValidationGolden, Create) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto result = nvcre::api::validate_create(parse_yaml(golden_case.input("input.yaml")));
    return to_pretty_json(causes_to_json(result));
  });
}

TEST_P(ImmutabilityGolden, CreateThenUpdate) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const auto created = parse_yaml(golden_case.input("input_create.yaml"));
    const auto create = nvcre::api::validate_create(created);
    if (!create.accepted) {
      // The update would have nothing to update: the case itself is wrong.
      throw std::runtime_error("mis-authored case: input_create.yaml is rejected: " +
                               boost::json::serialize(causes_to_json(create)));
    }
    const auto update =
        nvcre::api::validate_update(created, parse_yaml(golden_case.input("input_update.yaml")));
    boost::json::object out;
    out["create"] = causes_to_json(create);
    out["update"] = causes_to_json(update);
    return to_pretty_json(out);
  });
}

NVCRE_GOLDEN_SUITE(ValidationGolden, "validation");
NVCRE_GOLDEN_SUITE(ImmutabilityGolden, "immutability");

}  // namespace
