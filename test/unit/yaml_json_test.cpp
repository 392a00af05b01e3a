#include "jsonkit/yaml.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace json = boost::json;
using nvcre::jsonkit::parse_yaml;
using nvcre::jsonkit::parse_yaml_documents;
using nvcre::jsonkit::ParseError;
using nvcre::jsonkit::to_pretty_json;
using nvcre::jsonkit::to_yaml;

TEST(YamlJson, PlainScalarsResolveLikeKubectl) {
  const auto value = parse_yaml(
      "a: 1\nb: -7\nc: 1.5\nd: true\ne: yes\nf: ~\ng: hello\nh: \"1\"\ni: '2'\nj: 0x1F\nk: 1e3\nl: "
      "off\n");
  EXPECT_EQ(value.at("a"), json::value(1));
  EXPECT_EQ(value.at("b"), json::value(-7));
  EXPECT_EQ(value.at("c"), json::value(1.5));
  EXPECT_EQ(value.at("d"), json::value(true));
  EXPECT_EQ(value.at("e"), json::value(true));
  EXPECT_TRUE(value.at("f").is_null());
  EXPECT_EQ(value.at("g"), json::value("hello"));
  EXPECT_EQ(value.at("h"), json::value("1"));
  EXPECT_EQ(value.at("i"), json::value("2"));
  EXPECT_EQ(value.at("j"), json::value(31));
  EXPECT_EQ(value.at("k"), json::value(1000.0));
  EXPECT_EQ(value.at("l"), json::value(false));
}

TEST(YamlJson, QuantitiesAndVersionsStayStrings) {
  const auto value =
      parse_yaml("mem: 128Gi\ncpu: 500m\nversion: 1.2.3\nimage: nvcr.io/x:26.01-py3\n");
  EXPECT_EQ(value.at("mem"), json::value("128Gi"));
  EXPECT_EQ(value.at("cpu"), json::value("500m"));
  EXPECT_EQ(value.at("version"), json::value("1.2.3"));
  EXPECT_EQ(value.at("image"), json::value("nvcr.io/x:26.01-py3"));
}

TEST(YamlJson, MalformedYamlNamesLineAndColumn) {
  try {
    parse_yaml("a: 1\nb: [1, 2\nc: 3\n");
    FAIL() << "expected a ParseError";
  } catch (const ParseError& error) {
    EXPECT_NE(std::string(error.what()).find("line "), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("column "), std::string::npos) << error.what();
  }
}

TEST(YamlJson, DuplicateKeysAreRejected) { EXPECT_THROW(parse_yaml("a: 1\na: 2\n"), ParseError); }

TEST(YamlJson, DocumentCountIsChecked) {
  EXPECT_EQ(parse_yaml_documents("a: 1\n---\nb: 2\n---\n").size(), 2u);
  EXPECT_THROW(parse_yaml("a: 1\n---\nb: 2\n"), ParseError);
  EXPECT_THROW(parse_yaml(""), ParseError);
}

TEST(YamlJson, JsonInputIsAccepted) {
  const auto value = parse_yaml(R"({"kind": "Job", "spec": {"n": [1, "2", null]}})");
  EXPECT_EQ(value.at("kind"), json::value("Job"));
  EXPECT_EQ(value.at("spec").at("n").as_array().size(), 3u);
}

TEST(YamlJson, YamlOutputReadsBackIdentically) {
  const json::value original = json::parse(R"({
    "strings": ["true", "1", "1.5", "", " padded", "a: b", "-dash", "#hash", "multi\nline\n", "null", "yes", "~"],
    "numbers": [1, -2, 3.25, 1.0, 1e300],
    "empty_object": {}, "empty_array": [], "nothing": null, "flag": false,
    "nested": {"key with: colon": {"deep": [[1], {"x": "y"}]}}
  })");
  const auto round_tripped = parse_yaml(to_yaml(original));
  EXPECT_EQ(round_tripped, original) << to_yaml(original);
}

TEST(YamlJson, PrettyJsonIsIndentedAndStable) {
  const json::value value = json::parse(R"({"b": [1, {"c": true}], "a": {}, "d": 1.0})");
  EXPECT_EQ(to_pretty_json(value),
            "{\n  \"b\": [\n    1,\n    {\n      \"c\": true\n    }\n  ],\n  \"a\": {},\n  \"d\": "
            "1.0\n}\n");
}
