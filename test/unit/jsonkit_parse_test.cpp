#include "jsonkit/parse.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::jsonkit::parse_json;

TEST(JsonkitParse, AZeroWithAHugeExponentIsZero) {
  const json::value value = parse_json(R"({"a":[0e717,-0E+999],"b":{"c":0.0e400}})");
  EXPECT_EQ(json::serialize(value), R"({"a":[0E0,0E0],"b":{"c":0E0}})");
}

TEST(JsonkitParse, ANumberBeyondADoubleIsAnError) {
  for (const char* text : {"1e400", R"({"a":{"b":[1, -2e999]}})"}) {
    boost::system::error_code ec;
    const json::value value = parse_json(text, ec);
    EXPECT_EQ(ec, json::error::exponent_overflow) << text;
    EXPECT_TRUE(value.is_null()) << text;
    EXPECT_THROW(parse_json(text), boost::system::system_error) << text;
  }
}

TEST(JsonkitParse, OrdinaryDocumentsAndParseErrorsAreBoostJsons) {
  const char* text = R"({"i":1,"u":18446744073709551615,"d":2.5e-3,"s":"x","n":null})";
  EXPECT_EQ(parse_json(text), json::parse(text));
  boost::system::error_code ec;
  parse_json("{\"a\":", ec);
  EXPECT_TRUE(ec);
  json::parse_options shallow;
  shallow.max_depth = 2;
  parse_json("[[[1]]]", ec, shallow);
  EXPECT_EQ(ec, json::error::too_deep);
}

}  // namespace
