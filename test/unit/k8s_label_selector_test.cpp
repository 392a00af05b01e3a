#include "k8s/label_selector.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace nvcre::k8s {
namespace {

using Op = Requirement::Operator;

// The message of the std::invalid_argument `fn` throws ("" if it does not throw).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string parse_error(const std::string& text) {
  return error_of([&] { LabelSelector::parse(text); });
}

TEST(K8sLabelSelector, EmptySelectorMatchesEverything) {
  for (const char* text : {"", "   ", "\t\n"}) {
    const auto s = LabelSelector::parse(text);
    EXPECT_TRUE(s.empty());
    EXPECT_TRUE(s.matches({}));
    EXPECT_TRUE(s.matches({{"a", "b"}}));
    EXPECT_EQ(s.to_string(), "");
  }
  EXPECT_TRUE(LabelSelector{}.matches({{"x", "y"}}));
}

TEST(K8sLabelSelector, ParsesEachOperator) {
  const auto one = [](const char* text) {
    const auto s = LabelSelector::parse(text);
    EXPECT_EQ(s.requirements().size(), 1u) << text;
    return s.requirements().empty() ? Requirement{} : s.requirements().front();
  };
  EXPECT_EQ(one("a=b"), (Requirement{"a", Op::Equals, {"b"}}));
  EXPECT_EQ(one("a==b"), (Requirement{"a", Op::Equals, {"b"}}));
  EXPECT_EQ(one("a!=b"), (Requirement{"a", Op::NotEquals, {"b"}}));
  EXPECT_EQ(one("a in (x,y)"), (Requirement{"a", Op::In, {"x", "y"}}));
  EXPECT_EQ(one("a notin (x)"), (Requirement{"a", Op::NotIn, {"x"}}));
  EXPECT_EQ(one("a"), (Requirement{"a", Op::Exists, {}}));
  EXPECT_EQ(one("!a"), (Requirement{"a", Op::DoesNotExist, {}}));
  EXPECT_EQ(one("a>1"), (Requirement{"a", Op::GreaterThan, {"1"}}));
  EXPECT_EQ(one("a<10"), (Requirement{"a", Op::LessThan, {"10"}}));
  EXPECT_EQ(one("nvidia.com/gpu.present=true"),
            (Requirement{"nvidia.com/gpu.present", Op::Equals, {"true"}}));
}

TEST(K8sLabelSelector, WhitespaceAndOddButValidForms) {
  EXPECT_EQ(LabelSelector::parse("  env in ( prod , staging ) ,  tier = web ").to_string(),
            "env in (prod,staging),tier=web");
  EXPECT_EQ(LabelSelector::parse("a in (z,b,b)").requirements().front().values,
            (std::vector<std::string>{"b", "z"}));
  // Keywords are plain words in value position.
  EXPECT_EQ(LabelSelector::parse("in=notin").requirements().front(),
            (Requirement{"in", Op::Equals, {"notin"}}));
  // Empty values, as Go reads them.
  EXPECT_EQ(LabelSelector::parse("a=").requirements().front(),
            (Requirement{"a", Op::Equals, {""}}));
  EXPECT_EQ(LabelSelector::parse("a in ()").requirements().front().values,
            std::vector<std::string>{""});
  EXPECT_EQ(LabelSelector::parse("a in (,x)").requirements().front().values,
            (std::vector<std::string>{"", "x"}));
  EXPECT_EQ(LabelSelector::parse("a in (x,)").requirements().front().values,
            (std::vector<std::string>{"", "x"}));
  EXPECT_EQ(LabelSelector::parse("a in (x,,y)").requirements().front().values,
            (std::vector<std::string>{"", "x", "y"}));
  EXPECT_EQ(LabelSelector::parse("a=,b").to_string(), "a=,b");
}

TEST(K8sLabelSelector, RequirementsAreSortedByKey) {
  const auto s = LabelSelector::parse("tier=frontend,environment in (prod),!canary,version>2");
  EXPECT_EQ(s.to_string(), "!canary,environment in (prod),tier=frontend,version>2");
  ASSERT_EQ(s.requirements().size(), 4u);
  EXPECT_EQ(s.requirements()[0].key, "canary");
}

TEST(K8sLabelSelector, ToStringRoundTrips) {
  for (const char* text : {"a=b", "a!=b", "a in (x,y)", "a notin (x)", "a", "!a", "a>1", "a<10",
                           "a=,b in (c,d),!e,f"}) {
    const auto s = LabelSelector::parse(text);
    EXPECT_EQ(s.to_string(), text);
    EXPECT_EQ(LabelSelector::parse(s.to_string()).requirements(), s.requirements());
  }
}

TEST(K8sLabelSelector, Matching) {
  const Labels labels = {{"app", "web"}, {"tier", "frontend"}, {"gpus", "8"}, {"empty", ""}};
  const auto m = [&](const char* text) { return LabelSelector::parse(text).matches(labels); };
  EXPECT_TRUE(m("app=web"));
  EXPECT_FALSE(m("app=db"));
  EXPECT_FALSE(m("missing=web"));
  EXPECT_TRUE(m("app!=db"));
  EXPECT_FALSE(m("app!=web"));
  EXPECT_TRUE(m("missing!=web"));  // absent keys satisfy != and notin
  EXPECT_TRUE(m("app in (db,web)"));
  EXPECT_FALSE(m("app in (db)"));
  EXPECT_FALSE(m("missing in (web)"));
  EXPECT_TRUE(m("app notin (db)"));
  EXPECT_FALSE(m("app notin (web,db)"));
  EXPECT_TRUE(m("missing notin (web)"));
  EXPECT_TRUE(m("app"));
  EXPECT_FALSE(m("missing"));
  EXPECT_TRUE(m("!missing"));
  EXPECT_FALSE(m("!app"));
  EXPECT_TRUE(m("empty="));
  EXPECT_TRUE(m("empty"));
  EXPECT_FALSE(m("app="));
  EXPECT_TRUE(m("empty in ()"));
  EXPECT_TRUE(m("app=web,tier=frontend"));
  EXPECT_FALSE(m("app=web,tier=backend"));  // AND
}

TEST(K8sLabelSelector, GreaterAndLessThanCompareIntegers) {
  const auto m = [](const char* text, Labels labels) {
    return LabelSelector::parse(text).matches(labels);
  };
  EXPECT_TRUE(m("gpus>4", {{"gpus", "8"}}));
  EXPECT_FALSE(m("gpus>8", {{"gpus", "8"}}));
  EXPECT_TRUE(m("gpus>4", {{"gpus", "10"}}));  // numeric, not lexical
  EXPECT_TRUE(m("gpus<10", {{"gpus", "9"}}));
  EXPECT_TRUE(m("gpus<0", {{"gpus", "-3"}}));
  EXPECT_FALSE(m("gpus<10", {{"gpus", "10"}}));
  EXPECT_FALSE(m("gpus>4", {}));
  EXPECT_FALSE(m("gpus>4", {{"gpus", "eight"}}));
  EXPECT_FALSE(m("gpus>4", {{"gpus", "99999999999999999999"}}));  // not an int64
  EXPECT_FALSE(m("gpus>9223372036854775807", {{"gpus", "9223372036854775807"}}));
}

TEST(K8sLabelSelector, ParseErrorsNamePositionAndProblem) {
  EXPECT_EQ(parse_error("a in (x"),
            "invalid label selector \"a in (x\" at position 7: found end of string, expected: "
            "',' or ')'");
  EXPECT_EQ(parse_error("a b"),
            "invalid label selector \"a b\" at position 2: found 'b', expected: in, notin, =, ==, "
            "!=, gt, lt");
  EXPECT_EQ(parse_error("a=b,"),
            "invalid label selector \"a=b,\" at position 4: found end of string, expected: "
            "identifier after ','");
  EXPECT_EQ(parse_error(",a"),
            "invalid label selector \",a\" at position 0: found ',', expected: !, identifier, or "
            "'end of string'");
  EXPECT_EQ(parse_error("a=b c"),
            "invalid label selector \"a=b c\" at position 4: found 'c', expected: ',' or 'end of "
            "string'");
  EXPECT_EQ(parse_error("!a=b"),
            "invalid label selector \"!a=b\" at position 2: found '=', expected: ',' or 'end of "
            "string'");
  EXPECT_EQ(parse_error("a in x"),
            "invalid label selector \"a in x\" at position 5: found 'x', expected: '('");
  EXPECT_EQ(parse_error("a in (x y)"),
            "invalid label selector \"a in (x y)\" at position 8: found 'y', expected: ',' or ')'");
  EXPECT_EQ(parse_error("a in (=)"),
            "invalid label selector \"a in (=)\" at position 6: found '=', expected: ',', ')' or "
            "identifier");
  EXPECT_EQ(parse_error("a===b"),
            "invalid label selector \"a===b\" at position 3: found '=', expected: identifier");
  EXPECT_EQ(parse_error("!"),
            "invalid label selector \"!\" at position 1: found end of string, expected: "
            "identifier");
  EXPECT_EQ(parse_error("a,,b"),
            "invalid label selector \"a,,b\" at position 2: found ',', expected: identifier after "
            "','");
}

TEST(K8sLabelSelector, ParseValidatesKeysAndValues) {
  EXPECT_NE(parse_error("x=1,a/b/c=d")
                .find("at position 4: key: Invalid value: \"a/b/c\": a "
                      "qualified name must consist of"),
            std::string::npos)
      << parse_error("x=1,a/b/c=d");
  EXPECT_NE(parse_error("a=-x").find("at position 0: values[0][a]: Invalid value: \"-x\": a valid "
                                     "label must be an empty string"),
            std::string::npos)
      << parse_error("a=-x");
  EXPECT_NE(parse_error("a>x").find("values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, "
                                    "the value must be an integer"),
            std::string::npos);
  EXPECT_NE(parse_error("a>").find("the value must be an integer"), std::string::npos);
  EXPECT_NE(parse_error(std::string(64, 'k') + "=v").find("name part must be no more than 63"),
            std::string::npos);
  EXPECT_NE(parse_error("a in (x,y) , b=" + std::string(64, 'v'))
                .find("must be no more than 63 characters"),
            std::string::npos);
}

TEST(K8sLabelSelector, MakeRequirementValidates) {
  EXPECT_EQ(make_requirement("a", Op::In, {"z", "b", "z"}), (Requirement{"a", Op::In, {"b", "z"}}));
  EXPECT_EQ(error_of([] { make_requirement("a", Op::In, {}); }),
            "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be "
            "empty");
  EXPECT_EQ(error_of([] {
              make_requirement("a", Op::Equals, {"x", "y"});
            }),
            "values: Invalid value: []string{\"x\", \"y\"}: exact-match compatibility requires one "
            "single value");
  EXPECT_EQ(error_of([] { make_requirement("a", Op::Exists, {"x"}); }),
            "values: Invalid value: []string{\"x\"}: values set must be empty for exists and does "
            "not exist");
  EXPECT_EQ(error_of([] {
              make_requirement("a", Op::GreaterThan, {"1", "2"});
            }),
            "values: Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one "
            "value is required");
  EXPECT_EQ(error_of([] { make_requirement("a", Op::LessThan, {"1.5"}); }),
            "values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an "
            "integer");
  EXPECT_NE(error_of([] { make_requirement("", Op::Exists, {}); })
                .find("name part must be "
                      "non-empty"),
            std::string::npos);
}

TEST(K8sLabelSelector, FromJsonLabelSelector) {
  const auto s = LabelSelector::from_json(boost::json::parse(R"({
    "matchLabels": {"app": "web", "nvcre.nvidia.com/certification": "rack7"},
    "matchExpressions": [
      {"key": "tier", "operator": "In", "values": ["b", "a"]},
      {"key": "canary", "operator": "DoesNotExist"},
      {"key": "zone", "operator": "NotIn", "values": ["z1"]},
      {"key": "gpu", "operator": "Exists", "values": null}
    ]})"));
  EXPECT_EQ(s.to_string(),
            "app=web,!canary,gpu,nvcre.nvidia.com/certification=rack7,tier in (a,b),zone notin "
            "(z1)");
  EXPECT_TRUE(s.matches(
      {{"app", "web"}, {"nvcre.nvidia.com/certification", "rack7"}, {"tier", "a"}, {"gpu", "1"}}));
  EXPECT_FALSE(s.matches({{"app", "web"},
                          {"nvcre.nvidia.com/certification", "rack7"},
                          {"tier", "a"},
                          {"gpu", "1"},
                          {"canary", "yes"}}));
  EXPECT_TRUE(LabelSelector::from_json(boost::json::parse("{}")).empty());
  EXPECT_TRUE(LabelSelector::from_json(boost::json::value(nullptr)).empty());
  EXPECT_TRUE(LabelSelector::from_json(boost::json::parse(R"({"matchLabels": null})")).empty());
  EXPECT_TRUE(LabelSelector::from_json(boost::json::parse(R"({"unknown": 1})")).empty());
}

TEST(K8sLabelSelector, FromJsonRejectsBadShapes) {
  const auto err = [](const char* json) {
    return error_of([&] { LabelSelector::from_json(boost::json::parse(json)); });
  };
  EXPECT_EQ(err("[]"), "label selector must be an object");
  EXPECT_EQ(err(R"({"matchLabels": []})"), "matchLabels must be an object of strings");
  EXPECT_EQ(err(R"({"matchLabels": {"a": 1}})"), "matchLabels must be an object of strings");
  EXPECT_EQ(err(R"({"matchExpressions": {}})"), "matchExpressions must be an array");
  EXPECT_EQ(err(R"({"matchExpressions": [1]})"), "matchExpressions[0] must be an object");
  EXPECT_EQ(err(R"({"matchExpressions": [{"operator": "Exists"}]})"),
            "matchExpressions[0].key must be a string");
  EXPECT_EQ(err(R"({"matchExpressions": [{"key": "a"}]})"),
            "matchExpressions[0].operator must be a string");
  EXPECT_EQ(err(R"({"matchExpressions": [{"key": "a", "operator": "In", "values": "x"}]})"),
            "matchExpressions[0].values must be an array of strings");
  EXPECT_EQ(err(R"({"matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]})"),
            "matchExpressions[0]: \"Gt\" is not a valid label selector operator");
  EXPECT_EQ(err(R"({"matchExpressions": [{"key": "a", "operator": "in", "values": ["1"]}]})"),
            "matchExpressions[0]: \"in\" is not a valid label selector operator");
  EXPECT_EQ(err(R"({"matchExpressions": [{"key": "a", "operator": "In", "values": []}]})"),
            "matchExpressions[0]: values: Invalid value: []string{}: for 'in', 'notin' "
            "operators, values set can't be empty");
  EXPECT_NE(err(R"({"matchLabels": {"a": "-bad"}})").find("matchLabels: values[0][a]"),
            std::string::npos);
}

TEST(K8sLabelSelector, NodeSelectorRequirements) {
  const auto s = LabelSelector::from_node_selector_requirements(boost::json::parse(R"([
    {"key": "nvidia.com/gpu.count", "operator": "Gt", "values": ["4"]},
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "nvidia.com/gpu.clique", "operator": "Exists"}
  ])"));
  EXPECT_EQ(s.requirements().size(), 3u);
  EXPECT_TRUE(s.matches({{"nvidia.com/gpu.count", "8"},
                         {"kubernetes.io/arch", "amd64"},
                         {"nvidia.com/gpu.clique", "c1"}}));
  EXPECT_FALSE(s.matches({{"nvidia.com/gpu.count", "4"},
                          {"kubernetes.io/arch", "amd64"},
                          {"nvidia.com/gpu.clique", "c1"}}));
  EXPECT_FALSE(s.matches({{"nvidia.com/gpu.count", "8"}, {"kubernetes.io/arch", "amd64"}}));

  EXPECT_EQ(node_selector_requirement_from_json(
                boost::json::parse(R"({"key": "n", "operator": "Lt", "values": ["3"]})")),
            (Requirement{"n", Op::LessThan, {"3"}}));
  EXPECT_TRUE(LabelSelector::from_node_selector_requirements(boost::json::parse("[]")).matches({}));
  EXPECT_TRUE(LabelSelector::from_node_selector_requirements(boost::json::value(nullptr)).empty());

  const auto err = [](const char* json) {
    return error_of(
        [&] { LabelSelector::from_node_selector_requirements(boost::json::parse(json)); });
  };
  EXPECT_EQ(err("{}"), "node selector requirements must be an array");
  EXPECT_EQ(err(R"([{"key": "n", "operator": "Foo"}])"),
            "[0]: \"Foo\" is not a valid label selector operator");
  EXPECT_EQ(
      err(R"([{"key": "n", "operator": "Exists"}, {"key": "n", "operator": "Gt", "values": ["a"]}])"),
      "[1]: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an "
      "integer");
  EXPECT_NE(err(R"([{"key": "n", "operator": "Gt", "values": ["1", "2"]}])").find("exactly one"),
            std::string::npos);
}

TEST(K8sLabelSelector, FromMatchLabelsAndRequirements) {
  const auto s = LabelSelector::from_match_labels({{"nvidia.com/gpu.present", "true"}, {"a", "b"}});
  EXPECT_EQ(s.to_string(), "a=b,nvidia.com/gpu.present=true");
  EXPECT_TRUE(s.matches({{"nvidia.com/gpu.present", "true"}, {"a", "b"}, {"c", "d"}}));
  EXPECT_FALSE(s.matches({{"nvidia.com/gpu.present", "false"}, {"a", "b"}}));
  EXPECT_TRUE(LabelSelector::from_match_labels({}).empty());
  EXPECT_THROW(LabelSelector::from_match_labels({{"a", "b c"}}), std::invalid_argument);

  const auto r =
      LabelSelector::from_requirements({{"z", Op::In, {"2", "1"}}, {"a", Op::DoesNotExist, {}}});
  EXPECT_EQ(r.to_string(), "!a,z in (1,2)");
  EXPECT_THROW(LabelSelector::from_requirements({{"a", Op::In, {}}}), std::invalid_argument);
}

TEST(K8sLabelSelector, RequirementToString) {
  EXPECT_EQ((Requirement{"a", Op::In, {"y", "x"}}).to_string(), "a in (x,y)");
  EXPECT_EQ((Requirement{"a", Op::NotEquals, {"x"}}).to_string(), "a!=x");
  EXPECT_EQ((Requirement{"a", Op::LessThan, {"3"}}).to_string(), "a<3");
  EXPECT_EQ((Requirement{"a", Op::DoesNotExist, {}}).to_string(), "!a");
}

// The lookup form (labels answered one key at a time, as the informer cache does) agrees with the
// Labels form on every operator, for present, absent and empty labels.
TEST(K8sLabelSelector, MatchingByLookupAgreesWithMatchingALabelsMap) {
  const std::vector<Labels> objects = {
      {}, {{"a", "1"}}, {{"a", ""}}, {{"a", "7"}, {"b", "x"}}, {{"b", "y"}}};
  for (const char* text : {"a", "!a", "a=1", "a==", "a!=1", "a in (1,7)", "a notin (7)", "a>3",
                           "a<3", "a,b=x", "b!=x"}) {
    const auto selector = LabelSelector::parse(text);
    for (const auto& labels : objects) {
      const auto lookup = [&](std::string_view key) -> std::optional<std::string_view> {
        auto it = labels.find(std::string(key));
        return it == labels.end() ? std::nullopt : std::optional<std::string_view>(it->second);
      };
      EXPECT_EQ(selector.matches_lookup(lookup), selector.matches(labels)) << text;
    }
  }
  EXPECT_TRUE(LabelSelector::parse("a=1").matches_lookup(
      [](std::string_view) { return std::optional<std::string_view>("1"); }));
  EXPECT_FALSE(LabelSelector::parse("a").matches_lookup(
      [](std::string_view) { return std::optional<std::string_view>(); }));
}

}  // namespace
}  // namespace nvcre::k8s
