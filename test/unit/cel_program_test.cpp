// The CEL room (cel/program.hpp) with nothing switched off: values, CEL's arithmetic and
// comparison rules, error absorption by && and ||, maps and field selection over a JSON object,
// and the positioned messages for what it does not support.
#include "cel/program.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace nvcre::cel;

Environment environment() {
  Environment e;
  e.variables = {{"value", Type::floating()},
                 {"node", Type::dyn()},
                 {"labels", Type::map(Type::string(), Type::string())}};
  e.supported = "everything";
  return e;
}

Activation activation() {
  return {{"value", Value::floating(371.9)},
          {"node",
           from_json(boost::json::parse(R"({"metadata": {"name": "n1", "labels": {"gpu": "h100"}},
              "spec": {"unschedulable": true, "taints": [{"key": "a"}, {"key": "b"}]},
              "status": {"capacity": {"pods": 110}}})"))},
          {"labels", Value::map({{Value::string("zone"), Value::string("a")}})}};
}

Value run(const std::string& expression) {
  return Program::compile(expression, environment()).evaluate(activation());
}

std::string error_of(const std::string& expression) {
  try {
    run(expression);
  } catch (const Error& error) {
    return error.what();
  }
  return "<no error>";
}

TEST(CelProgram, EvaluatesTheLanguage) {
  const std::vector<std::string> holds = {
      "value >= 300 && value < 400",  // double against int: cross-type numeric comparison
      "value > 0.7 && value < 1000.0",
      "value * 2.0 == 743.8",
      "value / 1e3 < 1.0",
      "7 / 2 == 3 && -7 / 2 == -3 && 7 % 3 == 1 && -7 % 3 == -1",  // int division truncates
      "7u / 2u == 3u && 0x10u == 16u",
      "1 == 1.0 && 1u == 1 && 2 > 1u && 1.5 > 1 && -1 < 0u",
      "9223372036854775807 < 9223372036854775808.0",  // exact, not through double
      "-9223372036854775808 < 0",
      "'ab' + 'c' == 'abc' && [1] + [2] == [1, 2]",
      "size('äöü') == 3 && size([1, 2]) == 2 && size({'a': 1}) == 1 && 'abc'.size() == 3",
      "node.metadata.name == 'n1' && node.spec.unschedulable",
      "node.metadata.labels['gpu'] == 'h100' && node.status.capacity.pods == 110",
      "has(node.spec.taints) && !has(node.spec.providerID) && size(node.spec.taints) == 2",
      "node.spec.taints[1].key == 'b' && 'gpu' in node.metadata.labels",
      "labels.zone == 'a' && labels['zone'] == 'a'",
      "true ? value > 1.0 : 1 / 0 == 0",
      "[1, 'a', true][1] == 'a' && 'a' in [1, 'a']",
      "{'a': 1, 2: 'b'}[2] == 'b'",
      "null == null && node.metadata != null",
      "int(value) == 371 && uint(3.9) == 3u && double(2) == 2.0 && int('-5') == -5",
      "string(value) == '371.9' && string(1e6) == '1e+06' && string(12) == '12' && string(true) == "
      "'true'",
      "r'a\\n' == 'a\\\\n' && '\\x41\\u00e4\\101' == 'Aä' + 'A'",
      "'abc'.startsWith('ab') && 'abc'.endsWith('bc') && 'abc'.contains('b')",
      "false < true && 'a' < 'b' && [1] != [2] && {'a': 1} == {'a': 1.0}",
      "1.0 / 0.0 > 1e308 && !(0.0 / 0.0 == 0.0 / 0.0)",  // IEEE: +Inf, NaN unequal to itself
  };
  for (const auto& expression : holds) {
    EXPECT_TRUE(run(expression).as_bool()) << expression << "\n  " << error_of(expression);
  }
}

TEST(CelProgram, AndOrAbsorbErrorsWhenTheOtherSideDecides) {
  EXPECT_FALSE(run("1 / 0 == 0 && false").as_bool());
  EXPECT_FALSE(run("false && 1 / 0 == 0").as_bool());
  EXPECT_TRUE(run("node.spec.missing || true").as_bool());
  EXPECT_TRUE(run("true || node.spec.missing").as_bool());
  EXPECT_NE(error_of("1 / 0 == 0 && true").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("false || node.spec.missing").find("no such key: missing"), std::string::npos);
}

TEST(CelProgram, RuntimeErrorsNameTheirPosition) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1 / 0 == 0", "CEL evaluation error at position 3: division by zero"},
      {"1 % 0 == 0", "CEL evaluation error at position 3: modulus by zero"},
      {"9223372036854775807 + 1 > 0", "CEL evaluation error at position 21: integer overflow"},
      {"-9223372036854775808 - 1 < 0", "integer overflow"},
      {"-9223372036854775808 / -1 < 0", "integer overflow"},
      {"0u - 1u > 0u", "unsigned integer overflow"},
      {"int(1e19) > 0", "integer overflow"},
      {"uint(-1) > 0u", "unsigned integer overflow"},
      {"int('x') > 0", "cannot convert \"x\" to int"},
      {"node.spec.taints[2].key == 'c'", "index 2 out of range in a list of size 2"},
      {"node.metadata.labels['zone'] == 'a'", "no such key: zone"},
      {"node.metadata.name.first == 'x'", "no field \"first\" on a value of type string"},
      {"node.metadata.name + 1 == 'x'", "no matching overload for \"+\" on (string, int)"},
      {"{'a': 1, 'a': 2}.a == 1", "repeated map key a"},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_NE(error_of(expression).find(expected), std::string::npos)
        << expression << "\n  got: " << error_of(expression);
  }
}

TEST(CelProgram, TypeErrorsAndUnsupportedConstructsFailAtCompileTime) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"value + 1 > 2",
       "unsupported CEL construct \"value + 1\" at position 1 (no matching overload for \"+\" on "
       "(double, "
       "int)); supported: everything"},
      {"value % 2.0 == 0.0", "(no matching overload for \"%\" on (double, double))"},
      {"value == 'a'", "(no matching overload for \"==\" on (double, string))"},
      {"labels.zone > 1", "(no matching overload for \">\" on (string, int))"},
      {"value.x == 1", "(field selection needs a map with string keys, got double)"},
      {"[1][value] == 1", "(no matching overload for \"[]\" on (list(int), double))"},
      {"size(value) == 1", "(no matching overload for size(double))"},
      {"value ? 1 : 2", "(no matching overload for \"?:\" on (double, int, int))"},
      {"type(node) == map", "\"type\" at position 1 (unknown function)"},
      {"b'abc' == b'abc'", "\"b'\" at position 1 (bytes literals)"},
      {"'''a''' == 'a'", "(triple-quoted strings)"},
      {"nodes.size() > 0", "\"nodes\" at position 1 (unknown identifier)"},
      {"has(node)", "CEL syntax error at position 1: has() takes one field selection"},
      {"9223372036854775808 > 0", "CEL syntax error at position 1: integer literal out of range"},
      {"'\\q' == 'q'", "CEL syntax error at position 2: invalid escape sequence \"\\q\""},
      {"1.5e > 1.0", "CEL syntax error at position 1: malformed number literal"},
      {"12abc > 1", "CEL syntax error at position 1: malformed integer literal"},
      {"{'a' 1}", "CEL syntax error at position 6: expected \":\", got \"1\""},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_NE(error_of(expression).find(expected), std::string::npos)
        << expression << "\n  got: " << error_of(expression);
  }
}

TEST(CelProgram, ReportsTheStaticTypeOfTheResult) {
  const Environment e = environment();
  EXPECT_EQ(Program::compile("value >= 850", e).output_type().name(), "bool");
  EXPECT_EQ(Program::compile("value + 1.0", e).output_type().name(), "double");
  EXPECT_EQ(Program::compile("node.spec", e).output_type().name(), "dyn");
  EXPECT_EQ(Program::compile("[1, 2]", e).output_type().name(), "list(int)");
  EXPECT_EQ(Program::compile("{'a': [1u]}", e).output_type().name(), "map(string, list(uint))");
  EXPECT_EQ(Program::compile("[1, 'a']", e).output_type().name(), "list(dyn)");
}

TEST(CelProgram, AVariableWithoutAValueIsAnEvaluationError) {
  const Program program = Program::compile("value > 1.0", environment());
  try {
    program.evaluate({});
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), Error::Kind::Evaluation);
    EXPECT_EQ(error.detail(), "no value for variable \"value\"");
  }
}

TEST(CelValue, NumbersCompareExactlyAcrossKinds) {
  EXPECT_EQ(compare_numbers(Value::integer(1), Value::floating(1.5)), -1);
  EXPECT_EQ(compare_numbers(Value::floating(-0.5), Value::integer(0)), -1);
  EXPECT_EQ(compare_numbers(Value::unsigned_integer(18446744073709551615u), Value::integer(-1)), 1);
  EXPECT_EQ(compare_numbers(Value::floating(18446744073709551616.0),
                            Value::unsigned_integer(18446744073709551615u)),
            1);
  EXPECT_EQ(compare_numbers(Value::integer(9007199254740993), Value::floating(9007199254740992.0)),
            1);
  EXPECT_EQ(compare_numbers(Value::floating(NAN), Value::integer(0)), std::nullopt);
  EXPECT_TRUE(equals(Value::unsigned_integer(3), Value::floating(3.0)));
  EXPECT_FALSE(equals(Value::string("1"), Value::integer(1)));
}

}  // namespace
