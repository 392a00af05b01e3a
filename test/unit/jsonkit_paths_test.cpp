// The readers of jsonkit/paths.hpp whose semantics go beyond "the value at a path": absent vs
// empty strings, and integers given as numbers or numeric strings.
#include "jsonkit/paths.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace {

namespace json = boost::json;
using nvcre::jsonkit::integer_of;
using nvcre::jsonkit::optional_string_of;

TEST(JsonkitPaths, OptionalStringTellsAbsentFromEmpty) {
  const json::object object{{"name", "rt"}, {"empty", ""}, {"number", 3}};
  EXPECT_EQ(optional_string_of(object, "name"), "rt");
  EXPECT_EQ(optional_string_of(object, "empty"), "");
  EXPECT_EQ(optional_string_of(object, "number"), "") << "present, not a string";
  EXPECT_EQ(optional_string_of(object, "missing"), std::nullopt);
}

TEST(JsonkitPaths, IntegerReadsNumbersAndNumericStrings) {
  const json::value values = json::parse(R"([8, 8.9, "12", " 12", "12x", true, null])");
  const auto& list = values.as_array();
  EXPECT_EQ(integer_of(&list[0], -1), 8);
  EXPECT_EQ(integer_of(&list[1], -1), 8) << "a double is truncated";
  EXPECT_EQ(integer_of(&list[2], -1), 12);
  EXPECT_EQ(integer_of(&list[3], -1), -1) << "the whole string must be the number";
  EXPECT_EQ(integer_of(&list[4], -1), -1);
  EXPECT_EQ(integer_of(&list[5], -1), -1);
  EXPECT_EQ(integer_of(&list[6], -1), -1);
  EXPECT_EQ(integer_of(nullptr, -1), -1);
}

TEST(JsonkitPaths, IntegerClampsDoublesBeyondInt64) {
  const json::value values = json::parse(R"([1e300, -1e300, 9223372036854775808.0])");
  const auto& list = values.as_array();
  EXPECT_EQ(integer_of(&list[0], -1), INT64_MAX);
  EXPECT_EQ(integer_of(&list[1], -1), INT64_MIN);
  EXPECT_EQ(integer_of(&list[2], -1), INT64_MAX);
}

}  // namespace
