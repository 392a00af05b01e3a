#include "api/codec.hpp"

#include <gtest/gtest.h>

namespace json = boost::json;
using namespace nvcre::api;

namespace {

struct Inner {
  std::string name;
  std::optional<std::int32_t> count;
  bool operator==(const Inner&) const = default;
};
BOOST_DESCRIBE_STRUCT(Inner, (), (name, count))

struct Outer {
  std::string namespace_;
  std::int32_t required = 0;
  bool flag = false;
  std::vector<Inner> items;
  std::map<std::string, std::string> labels;
  json::value raw;
  std::optional<Inner> single;
  bool operator==(const Outer&) const = default;
};
BOOST_DESCRIBE_STRUCT(Outer, (), (namespace_, required, flag, items, labels, raw, single))

}  // namespace

TEST(Codec, DecodesAndEncodesWithJsonNames) {
  const json::value input = json::parse(R"({
    "namespace": "ns", "required": 3, "flag": true,
    "items": [{"name": "a", "count": 2}, {"name": "b"}],
    "labels": {"k": ""}, "raw": {"anything": [1, null, {"x": 1.5}]}
  })");
  const auto outer = decode<Outer>(input);
  EXPECT_EQ(outer.namespace_, "ns");
  EXPECT_EQ(outer.items.at(0).count, 2);
  EXPECT_FALSE(outer.items.at(1).count.has_value());
  EXPECT_EQ(outer.labels.at("k"), "");
  EXPECT_FALSE(outer.single.has_value());
  EXPECT_EQ(encode(outer), input);
}

TEST(Codec, OmitsEmptyValuesButKeepsRequiredNumbers) {
  Outer outer;
  EXPECT_EQ(encode(outer), json::parse(R"({"required": 0})"));
}

TEST(Codec, ReportsEveryProblemWithItsPath) {
  const json::value input = json::parse(R"({
    "required": "three", "items": [{"name": 1, "colour": "red"}], "labels": {"k": 5}
  })");
  try {
    decode<Outer>(input, "spec");
    FAIL() << "expected DecodeError";
  } catch (const DecodeError& error) {
    ASSERT_EQ(error.problems().size(), 4u) << error.what();
    EXPECT_EQ(error.problems()[0].field, "spec.required");
    EXPECT_EQ(error.problems()[0].message, "expected integer, got string");
    EXPECT_EQ(error.problems()[1].field, "spec.items[0].colour");
    EXPECT_EQ(error.problems()[1].message, "unknown field \"spec.items[0].colour\"");
    EXPECT_EQ(error.problems()[2].field, "spec.items[0].name");
    EXPECT_EQ(error.problems()[3].field, "spec.labels[k]");
  }
}

TEST(Codec, RejectsOutOfRangeInt32) {
  EXPECT_THROW(decode<Outer>(json::parse(R"({"required": 4294967296})")), DecodeError);
  EXPECT_EQ(decode<Outer>(json::parse(R"({"required": 2147483647})")).required, 2147483647);
}

// Found by fuzzing: a double beyond int64's range was cast to int64 (undefined behaviour).
TEST(Codec, WholeDoublesDecodeAsIntegersAndDoublesBeyondInt64AreRejected) {
  EXPECT_EQ(decode<Outer>(json::parse(R"({"required": 3.0})")).required, 3);
  for (const char* input : {R"({"required": 2.92234e+19})", R"({"required": -1e300})",
                            R"({"required": 9223372036854775808.0})", R"({"required": 2.5})"}) {
    try {
      decode<Outer>(json::parse(input));
      ADD_FAILURE() << "accepted " << input;
    } catch (const DecodeError& error) {
      EXPECT_NE(std::string(error.what()).find("expected integer"), std::string::npos)
          << error.what();
    }
  }
}

TEST(Codec, NullMeansAbsent) {
  const auto outer = decode<Outer>(json::parse(R"({"single": null, "required": 1})"));
  EXPECT_FALSE(outer.single.has_value());
}

TEST(Codec, PathsWithoutARootStartAtTheFirstField) {
  try {
    decode<Outer>(json::parse(R"({"items": [{}, {"colour": "red"}]})"));
    FAIL() << "expected DecodeError";
  } catch (const DecodeError& error) {
    ASSERT_EQ(error.problems().size(), 1u) << error.what();
    EXPECT_EQ(error.problems()[0].field, "items[1].colour");
  }
}

TEST(Codec, ACallersContextToleratesTheUnknownFieldsItNames) {
  const json::value input =
      json::parse(R"({"items": [{"name": "a", "extra": 1}], "extra": 2, "other": 3})");
  DecodeContext context("spec");
  std::vector<std::string> asked;
  context.tolerate_unknown_fields([&](std::string_view path) {
    asked.emplace_back(path);
    return path == "spec.items[0].extra" || path == "spec.extra";
  });
  try {
    decode<Outer>(input, context);
    FAIL() << "expected DecodeError";
  } catch (const DecodeError& error) {
    ASSERT_EQ(error.problems().size(), 1u) << error.what();
    EXPECT_EQ(error.problems()[0].message, "unknown field \"spec.other\"");
  }
  EXPECT_EQ(asked, (std::vector<std::string>{"spec.extra", "spec.other", "spec.items[0].extra"}));
}
