// Golden suite `roundtrip`: each case's input.yaml holds one nvcre object. The case decodes it
// (kind from the document), encodes it, decodes the encoding again and checks that both decodes are
// equal and that encoding is stable; it also checks that the YAML rendering of the encoding decodes
// to the same object. expected.json is the pretty-printed encoding. Negative cases (an `error`
// file) pin the messages of malformed input.
#include "api/objects.hpp"
#include "jsonkit/yaml.hpp"
#include "test/support/golden.hpp"

#include <gtest/gtest.h>

namespace {

using nvcre::testing::GoldenCase;
namespace api = nvcre::api;

class RoundTrip : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(RoundTrip, DecodeEncodeDecode) {
  nvcre::testing::check_golden(GetParam(), [](const GoldenCase& golden_case) {
    const api::AnyObject first =
        api::decode_any_object(nvcre::jsonkit::parse_yaml(golden_case.input("input.yaml")));
    const boost::json::value encoded = api::encode_any_object(first);

    const api::AnyObject second = api::decode_any_object(encoded);
    EXPECT_TRUE(first == second) << "decoding the encoding gave a different object";
    EXPECT_EQ(api::encode_any_object(second), encoded) << "encoding is not stable";

    const std::string yaml = nvcre::jsonkit::to_yaml(encoded);
    const api::AnyObject from_yaml = api::decode_any_object(nvcre::jsonkit::parse_yaml(yaml));
    EXPECT_TRUE(from_yaml == first) << "YAML round trip changed the object; YAML was:\n" << yaml;

    return nvcre::jsonkit::to_pretty_json(encoded);
  });
}

NVCRE_GOLDEN_SUITE(RoundTrip, "roundtrip");

}  // namespace
