#include "jsonkit/parse.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <cmath>

namespace {

namespace json = boost::json;
using nvcre::jsonkit::parse_json;

TEST(JsonkitParse, AZeroWithAHugeExponentIsAZeroOfItsSign) {
  const json::value value = parse_json(R"({"a":[0e717,-0E+999],"b":{"c":0.0e400}})");
  const auto& list = value.at("a").as_array();
  EXPECT_EQ(list[0].as_double(), 0.0);
  EXPECT_FALSE(std::signbit(list[0].as_double()));
  EXPECT_TRUE(std::signbit(list[1].as_double()));
  EXPECT_EQ(value.at("b").at("c").as_double(), 0.0);
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
