// Edge cases of the two override merges and of json_equal.
#include "jsonkit/named_merge.hpp"
#include "jsonkit/merge_patch.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <stdexcept>

namespace {

namespace json = boost::json;
using nvcre::jsonkit::json_equal;
using nvcre::jsonkit::merge_named;
using nvcre::jsonkit::merge_patch;

// Compares serialized text, so member order is part of what is checked.
void expect_dependency_merge(const char* base, const char* override_value, const char* expected) {
  EXPECT_EQ(
      json::serialize(nvcre::jsonkit::merge_named(json::parse(base), json::parse(override_value))),
      json::serialize(json::parse(expected)))
      << "base " << base << "\noverride " << override_value;
}

void expect_template_merge(const char* base, const char* patch, const char* expected) {
  EXPECT_EQ(json::serialize(nvcre::jsonkit::merge_patch(json::parse(base), json::parse(patch))),
            json::serialize(json::parse(expected)))
      << "base " << base << "\npatch " << patch;
}

TEST(WorkflowMerge, DependencyMapsMergeRecursivelyKeepingOrder) {
  expect_dependency_merge(R"({"a":1,"m":{"x":1,"y":2},"z":3})", R"({"m":{"y":20,"w":4},"n":5})",
                          R"({"a":1,"m":{"x":1,"y":20,"w":4},"z":3,"n":5})");
}

TEST(WorkflowMerge, DependencyNullDeletesAndIsNeverStored) {
  expect_dependency_merge(R"({"a":1,"m":{"x":1,"y":2}})",
                          R"({"a":null,"m":{"x":null},"gone":null})", R"({"m":{"y":2}})");
  // A new map (or a replacement) is written without its null members: there is nothing to delete.
  expect_dependency_merge(R"({"a":"s"})", R"({"a":{"k":null,"v":1},"b":{"c":{"d":null}}})",
                          R"({"a":{"v":1},"b":{"c":{}}})");
}

TEST(WorkflowMerge, DependencyTypeMismatchReplaces) {
  expect_dependency_merge(R"({"v":{"a":1}})", R"({"v":[{"name":"x"}]})", R"({"v":[{"name":"x"}]})");
  expect_dependency_merge(R"({"v":[{"name":"x"}]})", R"({"v":{"a":1}})", R"({"v":{"a":1}})");
  expect_dependency_merge(R"({"v":"text"})", R"({"v":{"a":1}})", R"({"v":{"a":1}})");
  expect_dependency_merge(R"({"v":{"a":1}})", R"({"v":7})", R"({"v":7})");
}

TEST(WorkflowMerge, NamedListsMergeByNameAndAppendNewNames) {
  expect_dependency_merge(
      R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"},{"name":"C","value":"3"}]})",
      R"({"env":[{"name":"D","value":"4"},{"name":"B","value":"20","extra":true},{"name":"A","value":null}]})",
      R"({"env":[{"name":"A"},{"name":"B","value":"20","extra":true},{"name":"C","value":"3"},{"name":"D","value":"4"}]})");
}

TEST(WorkflowMerge, NamedListItemsMergeRecursively) {
  expect_dependency_merge(
      R"({"containers":[{"name":"node","env":[{"name":"A","value":"1"}],"args":["x"]}]})",
      R"({"containers":[{"name":"node","env":[{"name":"B","value":"2"}],"args":["y","z"]}]})",
      R"({"containers":[{"name":"node","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"args":["y","z"]}]})");
}

TEST(WorkflowMerge, RepeatedOverrideNameMergesTheLastAndAppendsNewNamesInOrder) {
  expect_dependency_merge(
      R"({"l":[{"name":"a","v":0}]})",
      R"({"l":[{"name":"a","v":1},{"name":"n","v":1},{"name":"a","v":2},{"name":"n","v":2}]})",
      R"({"l":[{"name":"a","v":2},{"name":"n","v":1},{"name":"n","v":2}]})");
}

TEST(WorkflowMerge, EmptyListsReplace) {
  expect_dependency_merge(R"({"l":[{"name":"a"}]})", R"({"l":[]})", R"({"l":[]})");
  expect_dependency_merge(R"({"l":[]})", R"({"l":[{"name":"a"}]})", R"({"l":[{"name":"a"}]})");
}

TEST(WorkflowMerge, ListsWithUnnamedItemsReplace) {
  // tolerations carry no name: wholesale replacement.
  expect_dependency_merge(R"({"t":[{"key":"a","operator":"Exists"}]})",
                          R"({"t":[{"key":"b","operator":"Exists"}]})",
                          R"({"t":[{"key":"b","operator":"Exists"}]})");
  // One unnamed item on either side disables the named merge.
  expect_dependency_merge(R"({"l":[{"name":"a","v":1},{"v":2}]})", R"({"l":[{"name":"a","v":3}]})",
                          R"({"l":[{"name":"a","v":3}]})");
  expect_dependency_merge(R"({"l":[{"name":"a","v":1}]})", R"({"l":[{"name":"a","v":3},{"v":4}]})",
                          R"({"l":[{"name":"a","v":3},{"v":4}]})");
  // An empty or non-string name is no name.
  expect_dependency_merge(R"({"l":[{"name":"a","v":1}]})", R"({"l":[{"name":"","v":3}]})",
                          R"({"l":[{"name":"","v":3}]})");
  expect_dependency_merge(R"({"l":[{"name":1,"v":1}]})", R"({"l":[{"name":1,"w":3}]})",
                          R"({"l":[{"name":1,"w":3}]})");
}

TEST(WorkflowMerge, StringListsReplace) {
  expect_dependency_merge(R"({"args":["a","b"],"add":["NET_ADMIN"]})",
                          R"({"args":["c"],"add":["SYS_ADMIN"]})",
                          R"({"args":["c"],"add":["SYS_ADMIN"]})");
  expect_dependency_merge(R"({"l":["name"]})", R"({"l":[{"name":"x"}]})",
                          R"({"l":[{"name":"x"}]})");
}

TEST(WorkflowMerge, DependencyNonObjectArgumentsReplace) {
  expect_dependency_merge(R"({"a":1})", R"([1])", R"([1])");
  expect_dependency_merge(R"([1])", R"({"a":{"b":null}})", R"({"a":{}})");
}

TEST(WorkflowMerge, JobTemplateReplacesEveryListEvenNamedOnes) {
  expect_template_merge(R"({"spec":{"env":[{"name":"A","value":"1"}],"args":["x"],"image":"i"}})",
                        R"({"spec":{"env":[{"name":"B","value":"2"}],"args":[]}})",
                        R"({"spec":{"env":[{"name":"B","value":"2"}],"args":[],"image":"i"}})");
}

TEST(WorkflowMerge, JobTemplateMapsMergeAndNullDeletes) {
  expect_template_merge(
      R"({"metadata":{"labels":{"a":"1","b":"2"}},"spec":{"x":1}})",
      R"({"metadata":{"labels":{"a":null,"c":"3"},"annotations":{"n":null,"m":"v"}},"spec":null})",
      R"({"metadata":{"labels":{"b":"2","c":"3"},"annotations":{"m":"v"}}})");
}

TEST(WorkflowMerge, JobTemplateTypeMismatchReplaces) {
  expect_template_merge(R"({"a":"s","b":{"x":1},"c":[1]})",
                        R"({"a":{"k":1,"z":null},"b":"t","c":{"d":2}})",
                        R"({"a":{"k":1},"b":"t","c":{"d":2}})");
  expect_template_merge(R"({"a":1})", R"([1,2])", R"([1,2])");
  expect_template_merge(R"([1])", R"({"a":1})", R"({"a":1})");
}

TEST(WorkflowMerge, JobTemplateRejectsStrategicMergeDirectives) {
  EXPECT_THROW(nvcre::jsonkit::merge_patch(json::parse(R"({"a":{}})"),
                                           json::parse(R"({"a":{"$patch":"replace"}})")),
               std::invalid_argument);
  try {
    nvcre::jsonkit::merge_patch(json::parse("{}"),
                                json::parse(R"({"spec":{"$setElementOrder/env":[]}})"));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "strategic-merge directive \"$setElementOrder/env\" at "
                 "\"/spec/$setElementOrder/env\" is not supported: "
                 "a JSON merge patch merges maps and replaces lists");
  }
  // Inside a list (replaced verbatim) a "$" key is plain data of the list item.
  expect_template_merge(R"({})", R"({"l":[{"$k":1}]})", R"({"l":[{"$k":1}]})");
}

TEST(WorkflowMerge, JsonEqualComparesNumbersByValueAndIgnoresMemberOrder) {
  EXPECT_TRUE(nvcre::jsonkit::json_equal(json::parse("1"), json::parse("1.0")));
  EXPECT_TRUE(
      nvcre::jsonkit::json_equal(json::value(std::uint64_t{5}), json::value(std::int64_t{5})));
  EXPECT_FALSE(nvcre::jsonkit::json_equal(json::value(std::uint64_t{18446744073709551615ULL}),
                                          json::value(std::int64_t{-1})));
  EXPECT_FALSE(nvcre::jsonkit::json_equal(json::parse("1"), json::parse("\"1\"")));
  EXPECT_FALSE(nvcre::jsonkit::json_equal(json::parse("true"), json::parse("1")));
  EXPECT_TRUE(nvcre::jsonkit::json_equal(json::parse(R"({"a":[1,{"b":2,"c":3}],"d":null})"),
                                         json::parse(R"({"d":null,"a":[1.0,{"c":3,"b":2}]})")));
  EXPECT_FALSE(nvcre::jsonkit::json_equal(json::parse("[1,2]"), json::parse("[2,1]")));
  EXPECT_FALSE(
      nvcre::jsonkit::json_equal(json::parse(R"({"a":1})"), json::parse(R"({"a":1,"b":2})")));
  EXPECT_FALSE(
      nvcre::jsonkit::json_equal(json::parse(R"({"a":null})"), json::parse(R"({"b":null})")));
}

// Lists given directly merge as the same lists under a key would; a missing base takes the
// override, an unnamed item makes the override replace, and a null override leaves the base.
TEST(WorkflowMerge, ListsGivenDirectlyMergeAsUnderAKey) {
  const auto merged = [](const char* base, const char* override_list) {
    return json::serialize(
        nvcre::jsonkit::merge_named_lists(json::parse(base), json::parse(override_list)));
  };
  EXPECT_EQ(merged(R"([{"name":"A","value":"1"},{"name":"B","value":"0"}])",
                   R"([{"name":"B","value":"1"},{"name":"C","value":"x"}])"),
            R"([{"name":"A","value":"1"},{"name":"B","value":"1"},{"name":"C","value":"x"}])");
  EXPECT_EQ(merged("null", R"([{"name":"B","value":"1"}])"), R"([{"name":"B","value":"1"}])");
  EXPECT_EQ(merged(R"([{"name":"A"}])", R"([{"value":"1"}])"), R"([{"value":"1"}])");
  EXPECT_EQ(merged(R"([{"name":"A"}])", "null"), R"([{"name":"A"}])");
}

}  // namespace
