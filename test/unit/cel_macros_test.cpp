// The CEL room's macros (all, exists, exists_one, filter, map), string functions (matches,
// lowerAscii, upperAscii) and the shapes real node-health monitors write, with CEL's error
// semantics: all() and exists() absorb an element's error when another element decides, the
// other macros propagate it.
#include "cel/program.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

using namespace nvcre::cel;

Environment environment() {
  Environment e;
  e.variables = {{"node", Type::map(Type::string(), Type::dyn())},
                 {"xs", Type::list(Type::integer())},
                 {"name", Type::string()}};
  e.supported = "everything";
  return e;
}

Activation activation() {
  return {{"node", from_json(boost::json::parse(R"({
              "metadata": {"name": "gpu-node-05",
                           "labels": {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                                      "health": "ok"}},
              "spec": {"unschedulable": false,
                       "taints": [{"key": "nvidia.com/gpu.xid", "effect": "NoSchedule"}]},
              "status": {"conditions": [{"type": "Ready", "status": "True"},
                                        {"type": "GPUHealthy", "status": "False"},
                                        {"type": "MemoryPressure", "status": "False"}],
                         "capacity": {"nvidia.com/gpu": "8"}}})"))},
          {"xs", Value::list({Value::integer(1), Value::integer(2), Value::integer(3)})},
          {"name", Value::string("Gpu-Node-05")}};
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

TEST(CelMacros, EvaluateOverListsAndMapKeys) {
  const std::vector<std::string> holds = {
      "node.status.conditions.exists(c, c.type == 'GPUHealthy' && c.status == 'False')",
      "!node.status.conditions.exists(c, c.type == 'Ready' && c.status != 'True')",
      "node.status.conditions.all(c, has(c.type) && has(c.status))",
      "!xs.all(x, x > 1) && xs.all(x, x > 0)",
      "xs.exists_one(x, x == 2) && !xs.exists_one(x, x > 1)",
      "xs.filter(x, x % 2 == 1) == [1, 3]",
      "xs.map(x, x * 10) == [10, 20, 30]",
      "xs.map(x, x > 1, x * 10) == [20, 30]",
      "node.metadata.labels.exists(k, k.startsWith('nvidia.com/'))",
      "node.metadata.labels.filter(k, k != 'health') == ['nvidia.com/gpu.product']",
      "{'a': 1, 'b': 2}.map(k, k + '!') == ['a!', 'b!']",
      "size(node.status.conditions.filter(c, c.status == 'False')) == 2",
      "node.spec.taints.exists(t, t.key.startsWith('nvidia.com/gpu.xid'))",
      "[[1, 2], [3]].all(l, l.exists(x, x > 0))",                  // nested macros
      "xs.exists(x, xs.exists(x, x == 3)) && xs.all(xs, xs > 0)",  // shadowing
      "[].all(x, x > 0) && ![].exists(x, x > 0) && [].map(x, x) == []",
      "node.status.conditions.map(c, c.type)[1] == 'GPUHealthy'",
  };
  for (const auto& expression : holds) {
    EXPECT_TRUE(run(expression).as_bool()) << expression << "\n  " << error_of(expression);
  }
}

TEST(CelMacros, AllAndExistsAbsorbErrorsWhenAnElementDecides) {
  // The first element errs (1 / 0); a later one decides.
  EXPECT_TRUE(run("[0, 1].exists(x, 1 / x == 1)").as_bool());
  EXPECT_FALSE(run("[0, 1].all(x, 1 / x == 0)").as_bool());
  // Nothing decides: the error is the result.
  EXPECT_NE(error_of("[0, 1].exists(x, 1 / x == 5)").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("[0, 1].all(x, 1 / x == 1)").find("division by zero"), std::string::npos);
  // A missing field of one condition is absorbed the same way.
  EXPECT_TRUE(run("[{'a': 1}, {'b': 2}].exists(m, m.b == 2)").as_bool());
  // The other macros propagate.
  EXPECT_NE(error_of("[0, 1].exists_one(x, 1 / x == 1)").find("division by zero"),
            std::string::npos);
  EXPECT_NE(error_of("[0, 1].filter(x, 1 / x == 1)").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("[1, 0].map(x, 1 / x)").find("division by zero"), std::string::npos);
}

TEST(CelMacros, RuntimeTypeErrorsInsideMacros) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"node.metadata.name.exists(c, true)", "no matching overload for \"exists\" on (string)"},
      {"node.spec.taints.all(t, t.key)", "no matching overload for \"all\" on (string)"},
      {"node.status.conditions.exists(c, c.reason == 'Xid')", "no such key: reason"},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_NE(error_of(expression).find(expected), std::string::npos)
        << expression << "\n  got: " << error_of(expression);
  }
}

TEST(CelStrings, MatchesAndAsciiCase) {
  const std::vector<std::string> holds = {
      "node.metadata.name.matches('^gpu-node-[0-9]+$')",
      "matches(node.metadata.name, 'node-0')",  // unanchored: anywhere in the text
      "!node.metadata.name.matches('^node')",
      "node.metadata.labels['nvidia.com/gpu.product'].matches('H100|A100')",
      "name.lowerAscii() == 'gpu-node-05' && name.upperAscii() == 'GPU-NODE-05'",
      "'ÄbC'.lowerAscii() == 'Äbc'",  // ASCII letters only
      // A pattern computed at run time is compiled then.
      "'gpu-node-05 ok'.matches(node.metadata.labels.health.upperAscii().lowerAscii() + '$')",
  };
  for (const auto& expression : holds) {
    EXPECT_TRUE(run(expression).as_bool()) << expression << "\n  " << error_of(expression);
  }
  EXPECT_NE(error_of("name.matches(name + '(')").find("invalid RE2 regular expression"),
            std::string::npos);
}

TEST(CelMacros, BadMacrosAndPatternsFailAtCompileTime) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"name.exists(c, true)",
       "unsupported CEL construct \"name.exists(c, true)\" at position 1 (exists() needs a list or "
       "a map to range over, got string)"},
      {"xs.all(x, x + 1)",
       "unsupported CEL construct \"x + 1\" at position 11 (all() needs a bool condition, got "
       "int)"},
      {"xs.filter(x, 'a')", "(filter() needs a bool condition, got string)"},
      {"xs.map(x, x, x)", "(map() needs a bool condition, got int)"},
      {"xs.all(x, x == 'a')", "(no matching overload for \"==\" on (int, string))"},
      {"xs.exists(1, true)", "CEL syntax error at position 11: exists() takes a variable name"},
      {"xs.exists(true, true)", "exists() takes a variable name first"},
      {"xs.exists(x, true, false)",
       "CEL syntax error at position 18: exists() takes a variable and one expression, got \",\""},
      {"xs.map(x, true, x, x)", "map() takes a variable and one or two expressions"},
      {"xs.exists(x, true) && x > 1", "\"x\" at position 23 (unknown identifier)"},
      {"name.matches('(')",
       "unsupported CEL construct \"'('\" at position 14 (invalid RE2 regular expression: "
       "missing ): ()"},
      {"name.matches(1)", "(no matching overload for string.matches(int))"},
      {"xs.lowerAscii() == ''", "(no matching overload for list(int).lowerAscii())"},
      {"node.?metadata", "\".?\" at position 5 (optional field selection)"},
      {"node[?'metadata']", "\"[?\" at position 5 (optional indexing)"},
      {"xs.sort()", "\"sort\" at position 4 (unknown function)"},
      {"timestamp('2026-01-01T00:00:00Z') > timestamp('2025-01-01T00:00:00Z')",
       "\"timestamp\" at position 1 (unknown function)"},
  };
  for (const auto& [expression, expected] : cases) {
    EXPECT_NE(error_of(expression).find(expected), std::string::npos)
        << expression << "\n  got: " << error_of(expression);
  }
}

TEST(CelMacros, StaticTypesOfTheResults) {
  const Environment e = environment();
  EXPECT_EQ(Program::compile("xs.exists(x, x > 1)", e).output_type().name(), "bool");
  EXPECT_EQ(Program::compile("xs.filter(x, x > 1)", e).output_type().name(), "list(int)");
  EXPECT_EQ(Program::compile("xs.map(x, string(x))", e).output_type().name(), "list(string)");
  EXPECT_EQ(Program::compile("node.status.conditions.map(c, c.type)", e).output_type().name(),
            "list(dyn)");
  EXPECT_EQ(Program::compile("{'a': 1}.filter(k, k != 'b')", e).output_type().name(),
            "list(string)");
}

TEST(CelMacros, SwitchedOffWithFunctions) {
  Environment e = environment();
  e.features.functions = false;
  e.supported = "a subset";
  try {
    Program::compile("xs.exists(x, x > 1)", e);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), Error::Kind::Unsupported);
    EXPECT_NE(std::string(error.what()).find("\"exists\" at position 4 (macros)"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(Program::compile("name.matches('a')", e), Error);
  EXPECT_THROW(Program::compile("name.lowerAscii() == 'a'", e), Error);
  EXPECT_TRUE(Program::compile("name.startsWith('G')", e).evaluate(activation()).as_bool());
}

}  // namespace
